package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.time.ManualClock;
import org.junit.jupiter.api.Test;

/** The executors kept while jobs keep arriving: what the learnt keep times give over time. */
class ArrivalHoldTest {
  private static final long CEILING = 60_000;
  /** A cold start costs 2 x 3 s = 6 s of executor time. */
  private static final int WEIGHT = 2;
  private static final long LATENCY = 3_000;

  private final ManualClock clock = new ManualClock(100_000);
  private final ArrivalHold hold = new ArrivalHold(CEILING, WEIGHT);
  private long submitted;

  /** A job of {@code tasks} tasks arrives now, the only work; one executor runs 2 tasks. */
  private void arrive(int tasks) {
    submitted += tasks;
    hold.observe(clock.millis(), submitted, n -> (int) ((n + 1) / 2), (tasks + 1) / 2);
  }

  /** An evaluation that sees no new task, and work in flight that needs {@code executors}. */
  private void inFlight(int executors) {
    hold.observe(clock.millis(), submitted, n -> (int) ((n + 1) / 2), executors);
  }

  /** An evaluation that sees no task pending or running, and no new one. */
  private void quiet() {
    inFlight(0);
  }

  /** {@code jobs} jobs of 8 tasks (4 executors), 5 s apart; the clock ends at the last. */
  private void jobsFiveSecondsApart(int jobs) {
    for (int i = 0; i < jobs; i++) {
      if (i > 0) {
        clock.advanceMillis(5_000);
      }
      arrive(8);
    }
  }

  private int keepAfter(long millis) {
    return hold.executorsToKeep(clock.millis() + millis, LATENCY);
  }

  @Test
  void nothingIsKeptBeforeTwoArrivals() {
    assertEquals(0, keepAfter(0));
    arrive(8);
    assertEquals(0, keepAfter(1_000), "one arrival makes no gap");
  }

  /** Jobs every 5 s: keeping their 4 executors 5 s costs less than a 6 s cold start. */
  @Test
  void aBurstOfJobsKeepsTheirExecutorsUntilTheUsualGapHasPassed() {
    jobsFiveSecondsApart(6);

    assertEquals(4, keepAfter(1_000));
    assertEquals(4, keepAfter(5_000));
    assertEquals(0, keepAfter(5_001), "no job came within the usual gap: let them go");
  }

  /** The same gaps with a cheap start: waiting 5 s costs more than starting again. */
  @Test
  void whenAStartCostsLessThanTheGapNothingIsKept() {
    jobsFiveSecondsApart(6);

    assertEquals(0, hold.executorsToKeep(clock.millis() + 1_000, 2_000));
    assertEquals(4, hold.executorsToKeep(clock.millis() + 1_000, LATENCY),
        "the keep times follow the start latency back");
  }

  /** Nine jobs of 2 executors and one of 10: the 8 more only the rare wide job used go. */
  @Test
  void executorsOnlyARareWideJobNeedsAreNotKept() {
    arrive(4);
    for (int i = 0; i < 10; i++) {
      clock.advanceMillis(5_000);
      arrive(i == 4 ? 20 : 4);
    }

    assertEquals(2, keepAfter(1_000));
  }

  @Test
  void anEvaluationWithoutNewTasksIsNoArrival() {
    arrive(8);
    clock.advanceMillis(5_000);
    arrive(8);
    long lastArrival = clock.millis();
    clock.advanceMillis(4_000);
    arrive(0);
    hold.observe(clock.millis(), submitted - 3, n -> 100, 4); // a lower count: no arrival

    assertEquals(4, hold.executorsToKeep(lastArrival + 5_000, LATENCY),
        "kept from the last real arrival on");
    assertEquals(0, hold.executorsToKeep(lastArrival + 5_001, LATENCY));
  }

  /**
   * An interactive session: jobs of 12 s, each submitted 200 ms after the one before ended,
   * bursts 40 s apart. The wait is counted from the end of the work, so the next job of a burst
   * finds the executors (counted from the arrivals, every job outlasts its 200 ms think time
   * and nothing would be kept when it ends).
   */
  @Test
  void aSessionsNextJobAThinkTimeAfterTheLastEndedFindsItsExecutors() {
    for (int burst = 0; burst < 4; burst++) {
      for (int job = 0; job < 4; job++) {
        arrive(8);
        clock.advanceMillis(12_000);
        quiet();
        if (burst == 3 && job == 3) {
          break;
        }
        clock.advanceMillis(job < 3 ? 200 : 40_000);
      }
    }

    assertEquals(4, keepAfter(0), "kept as the job ends");
    assertEquals(4, keepAfter(200), "kept over the usual think time");
    assertEquals(0, keepAfter(201), "no job came within the usual think time: let them go");
  }

  /** Work that resumes without new work (a stage the forecast listed) ends the quiet period. */
  @Test
  void theWaitRestartsOnlyWhenTheWorkEnds() {
    for (int job = 0; job < 6; job++) {
      arrive(8);
      clock.advanceMillis(12_000);
      quiet();
      clock.advanceMillis(200);
    }
    arrive(8);
    clock.advanceMillis(1_000);
    quiet(); // between two stages of the job
    clock.advanceMillis(100);
    inFlight(4); // its next stage runs
    clock.advanceMillis(10_000);

    assertEquals(0, keepAfter(0), "11.1 s after the arrival, the job still running");
    quiet();
    assertEquals(4, keepAfter(200), "counted from the job's end");
  }

  /**
   * Jobs 90 s apart, beyond the 60 s ceiling: no keep time allowed covers the gap, so however
   * dear a start, keeping executors only adds cost.
   */
  @Test
  void arrivalsFartherApartThanTheCeilingKeepNothing() {
    ArrivalHold dearStarts = new ArrivalHold(CEILING, 100);
    long submittedSoFar = 0;
    for (int i = 0; i < 5; i++) {
      submittedSoFar += 2;
      dearStarts.observe(clock.millis(), submittedSoFar, n -> 1, 1);
      clock.advanceMillis(90_000);
    }

    assertEquals(0, dearStarts.executorsToKeep(clock.millis() - 90_000 + 1, LATENCY));
  }

  /**
   * An interactive session whose jobs narrow (4 executors for the map stage, 1 for the reduce)
   * and whose next job is submitted as the last one ends: the idle-then-released executors
   * waited from the map stage's end, 2 s, not from the job's submission, 7 s, and are kept for
   * the next job. (Counted from the arrivals or the work's end, the gaps were 7 s, and no job
   * found its map executors.)
   */
  @Test
  void aJobWhoseLastStageIsNarrowerKeepsTheWiderStagesExecutorsForTheNextJob() {
    for (int job = 0; job < 6; job++) {
      arrive(8);
      clock.advanceMillis(5_000);
      inFlight(1); // the map stage ended; the reduce runs 2 s
      clock.advanceMillis(2_000);
    }
    arrive(8);
    clock.advanceMillis(5_000);
    inFlight(1);

    assertEquals(4, keepAfter(0), "the map executors are idle from now on");
    assertEquals(4, keepAfter(2_000), "kept as long as the reduce usually runs");
    assertEquals(0, keepAfter(2_001), "then none beyond what the reduce uses");
  }

  /**
   * A session of jobs of 2 s and 20 s in turn, each submitted 8 s after the last one's result,
   * starts dear (27 s): the wait counts from each job's end, however long it ran, so the
   * executors stay 8 s after a short job as after a long one (counted from the submissions, the
   * gaps were 10 s and 28 s, and a short job's executors stayed 26 s).
   */
  @Test
  void aThinkTimeLongerThanTwoStartsStillCountsFromTheWorksEnd() {
    ArrivalHold dearStarts = new ArrivalHold(CEILING, 9);
    long submittedSoFar = 0;
    for (int job = 0; job < 8; job++) {
      submittedSoFar += 8;
      dearStarts.observe(clock.millis(), submittedSoFar, n -> (int) ((n + 1) / 2), 4);
      clock.advanceMillis(job % 2 == 0 ? 2_000 : 20_000);
      dearStarts.observe(clock.millis(), submittedSoFar, n -> 4, 0);
      if (job < 7) {
        clock.advanceMillis(8_000);
      }
    }
    submittedSoFar += 8;
    clock.advanceMillis(8_000);
    dearStarts.observe(clock.millis(), submittedSoFar, n -> 4, 4);
    clock.advanceMillis(2_000);
    dearStarts.observe(clock.millis(), submittedSoFar, n -> 4, 0); // a short job's end

    assertEquals(4, dearStarts.executorsToKeep(clock.millis() + 8_000, LATENCY));
    assertEquals(0, dearStarts.executorsToKeep(clock.millis() + 8_001, LATENCY));
  }
}
