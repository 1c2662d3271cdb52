package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.DemandForecast.Forecast;
import dev.tide.driver.alloc.DemandForecast.UpcomingStage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The lookahead's estimates from finished tasks, on hand-written stage snapshots. */
class DemandForecastTest {
  private static final long[] NONE = {};

  private static StageOutlook running(int id, int pending, long[] elapsed, long[] finished,
      long firstFinishAgo, long lastFinishAgo) {
    return new StageOutlook(id, List.of(), 100, true, false, pending, elapsed, finished,
        firstFinishAgo, lastFinishAgo);
  }

  private static StageOutlook next(int id, int parent, int tasks) {
    return new StageOutlook(id, List.of(parent), tasks, false, false, 0, NONE, NONE, -1, -1);
  }

  @Test
  void aPendingTaskTakesTheMeanOfItsStagesFinishedTasks() {
    Forecast f = DemandForecast.of(List.of(running(0, 10, NONE, new long[] {1_000, 3_000},
        5_000, 1_000)), 1, 4);
    assertEquals(2_000, f.taskMillis());
  }

  @Test
  void beforeAnyTaskFinishedTheLongestRunningOneIsALowerBound() {
    Forecast f = DemandForecast.of(List.of(running(0, 10, new long[] {500, 800}, NONE,
        -1, -1)), 1, 2);
    assertEquals(DemandForecast.UNKNOWN, f.taskMillis());
    assertEquals(800, f.taskMillisAtLeast());
    assertEquals(800, f.taskMillisOrLowerBound());
    assertEquals(0, DemandForecast.of(List.of(running(0, 10, NONE, NONE, -1, -1)), 1, 0)
        .taskMillisOrLowerBound());
  }

  @Test
  void theNextStageIsRunnableWhenItsParentsLastRunningTaskIsExpectedToEnd() {
    // A task that has run 1 s, in a stage whose tasks took 2, 4 and 6 s: those longer than
    // 1 s took 4 s on average, so 3 s are left.
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, new long[] {1_000}, new long[] {2_000, 4_000, 6_000}, 6_000, 1_000),
        next(1, 0, 300)), 1, 1);
    assertEquals(List.of(new UpcomingStage(1, 300, 3_000, 0.75, 1_000)), f.upcoming());
    assertTrue(f.moreStages());
    assertEquals(300, f.tasksRunnableWithin(3_000));
    assertEquals(0, f.tasksRunnableWithin(2_999));
  }

  @Test
  void executorsOnTheirWayCountForHowFastANarrowStageDrains() {
    // 40 pending tasks of 3 s and one executor there: 40 rounds, 120 s. With 41 asked for, 40
    // of them starting: one round.
    assertEquals(41, DemandForecast.executorsExpected(1, 40, 41, 0));
    // Asked for more than can come: the queue grants 10 more, 5 start already.
    assertEquals(16, DemandForecast.executorsExpected(1, 5, 41, 10));
    // Never fewer than those there, whatever the target says.
    assertEquals(8, DemandForecast.executorsExpected(8, 0, 2, 100));
    List<StageOutlook> stages = List.of(
        running(0, 40, new long[] {1_000}, new long[] {3_000, 3_000}, 3_000, 1_000),
        next(1, 0, 1_000));
    assertEquals(120_000, DemandForecast.of(stages, 1, 1).upcoming().get(0).runnableInMillis());
    assertEquals(3_000, DemandForecast.of(stages, 1,
        DemandForecast.executorsExpected(1, 40, 41, 0)).upcoming().get(0).runnableInMillis());
  }

  private static long[] suffixSums(long[] ascending) {
    long[] sums = new long[ascending.length + 1];
    for (int i = ascending.length - 1; i >= 0; i--) {
      sums[i] = sums[i + 1] + ascending[i];
    }
    return sums;
  }

  @Test
  void stragglersRunAsLongAsTheEndsOfTheEarlierOnesSay() {
    // 900 tasks took about 5 s; 20 stragglers ran past 13 s, 10 of them ended at 16-34 s, and
    // 10 still run (13-29 s so far). The stage's mean and median (5 s) say little of them; the
    // ten that ended past 13 s spent 96 s past it, the running ones 81 s so far: 10 ends in
    // 177 s at risk, one every 17.7 s, and the last of ten ends after about H(10) x 17.7 s =
    // 51.8 s.
    long[] finished = new long[910];
    for (int i = 0; i < 900; i++) {
      finished[i] = 4_000 + i * 2;
    }
    long[] stragglers = {16_000, 17_000, 18_000, 19_000, 20_000, 22_000, 24_000, 26_000,
        30_000, 34_000};
    System.arraycopy(stragglers, 0, finished, 900, 10);
    long[] running = {13_000, 15_000, 17_000, 19_000, 21_000, 22_000, 23_000, 25_000, 27_000,
        29_000};
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, running, finished, 40_000, 1_000), next(1, 0, 500)), 1, 256);
    assertEquals(51_843, f.upcoming().get(0).runnableInMillis());
    // The finished ones past each running task's age alone (the youngest: those past 13 s
    // averaged 22.6 s) say 9.6 s, the stage's mean over its median (1.04) a second.
    assertEquals(51_843, DemandForecast.lastOfOutrunMillis(finished, suffixSums(finished),
        running));
  }

  @Test
  void aStragglerEndingSaysLittleOfThoseStillRunning() {
    // 1,000 tasks took 2 s; of three skewed ones, one ended at 77 s just now, two have run
    // 89 s. None ended past 89 s: the fit starts at the latest end, 77 s; the two have been at
    // risk 12 s each since, 24 s for one end, and the last of two ends after 1.5 x 24 s. The
    // stage's other rules, timed by its short tasks, said 3.3 s (mean / median - 1 = 0.037 of
    // 89 s), and its next stage's executors were asked for at once.
    long[] finished = new long[1_001];
    Arrays.fill(finished, 2_000);
    finished[1_000] = 77_000;
    long[] running = {89_000, 89_000};
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, running, finished, 95_000, 0), next(1, 0, 1_500)), 1, 256);
    assertEquals(36_000, f.upcoming().get(0).runnableInMillis());
    assertEquals(0, f.tasksRunnableWithin(10_500));
    // Tasks of about one length that outran the finished by a little are not stragglers (the
    // youngest has run 1.5 times the median or less): no fit from the latest end.
    long[] even = {120_000, 120_500, 121_000};
    assertEquals(0, DemandForecast.lastOfOutrunMillis(even, suffixSums(even),
        new long[] {123_000, 123_000}));
  }

  @Test
  void withFewerThanTwoFinishedTasksTheParentsEndIsNotKnown() {
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, new long[] {1_000}, new long[] {2_000}, 1_000, 1_000),
        next(1, 0, 300)), 1, 1);
    assertEquals(DemandForecast.UNKNOWN, f.upcoming().get(0).runnableInMillis());
    assertEquals(0, f.tasksRunnableWithin(Long.MAX_VALUE - 1));
  }

  @Test
  void tasksThatOutranALightTailEndSoonAndThoseOfAHeavyTailRunAsLongAgain() {
    // Light: every task took 1 s; one has run 1.5 s. Finishes came every 1 s, the last 1 s ago.
    Forecast light = DemandForecast.of(List.of(
        running(0, 0, new long[] {1_500}, new long[] {1_000, 1_000, 1_000}, 3_000, 1_000),
        next(1, 0, 50)), 1, 1);
    assertEquals(1_000, light.upcoming().get(0).runnableInMillis());
    // Heavy: median 1 s, mean 4 s (mean / median - 1 = 3); one has run 20 s: 60 s left.
    Forecast heavy = DemandForecast.of(List.of(
        running(0, 0, new long[] {20_000}, new long[] {1_000, 1_000, 10_000}, 15_000, 10_000),
        next(1, 0, 50)), 1, 1);
    assertEquals(60_000, heavy.upcoming().get(0).runnableInMillis());
  }

  @Test
  void oneTaskEndingJustPastSeveralStillRunningSaysLittleOfThem() {
    // Three tasks have run 30-31 s; of the finished, only one (33 s) ran as long. From it alone
    // the task at 30.5 s would have 2.5 s left; but two tasks have run 30.5 s or longer and one
    // finished past that: the finished one is the short part, so those tasks have outrun what
    // finished tasks tell, and the heavy tail times them (mean 9 s / median 1 s - 1 = 8 times
    // the 31 s the longest has run).
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, new long[] {30_000, 30_500, 31_000},
            new long[] {1_000, 1_000, 1_000, 33_000}, 40_000, 100),
        next(1, 0, 50)), 1, 3);
    assertEquals(248_000, f.upcoming().get(0).runnableInMillis());
    // As many finished past 30 s as run past it: their mean tells (34 - 30 = 4 s left).
    Forecast told = DemandForecast.of(List.of(
        running(0, 0, new long[] {30_000}, new long[] {1_000, 1_000, 1_000, 34_000},
            40_000, 100),
        next(1, 0, 50)), 1, 1);
    assertEquals(4_000, told.upcoming().get(0).runnableInMillis());
  }

  @Test
  void anEndExtrapolatedFromFewerThanHalfOfTheParentsTasksIsTrustedOnlyAsFarAsTheyHaveRun() {
    // Two of eight long tasks finished at 120 s, a second apart; six have run 123 s and, having
    // outrun both, are timed by the finishes' pace: 6 x 1 s. That is the short part of the stage.
    Forecast early = DemandForecast.of(List.of(
        running(0, 0, new long[] {123_000, 123_000, 123_000, 123_000, 123_000, 123_000},
            new long[] {120_000, 121_000}, 3_000, 2_000),
        next(1, 0, 1_000)), 1, 6);
    UpcomingStage stage = early.upcoming().get(0);
    assertEquals(6_000, stage.runnableInMillis());
    assertEquals(0.25, stage.parentsFinishedShare());
    assertEquals(0, early.tasksRunnableWithin(12_000), "not trusted: its tasks ran 123 s");
    assertEquals(1_000, early.tasksRunnableWithin(123_000));
    // Half finished: trusted however long the tasks ran.
    Forecast half = DemandForecast.of(List.of(
        running(0, 0, new long[] {123_000, 123_000, 123_000, 123_000},
            new long[] {120_000, 121_000, 121_500, 122_000}, 3_000, 1_000),
        next(1, 0, 1_000)), 1, 4);
    assertEquals(1_000, half.tasksRunnableWithin(12_000));
  }

  @Test
  void stagesFurtherAheadAreKnownToExistButNotWhenTheyCome() {
    Forecast f = DemandForecast.of(List.of(
        running(0, 5, NONE, new long[] {1_000, 1_000}, 2_000, 1_000), next(1, 0, 10),
        next(2, 1, 10)), 1, 1);
    assertEquals(1, f.upcoming().size(), "only the stage whose parents are all submitted");
    assertTrue(f.moreStages());
    assertFalse(DemandForecast.of(List.of(running(0, 5, NONE, NONE, -1, -1)), 1, 1)
        .moreStages());
  }

  @Test
  void aWideStageBehindAOneTaskAggregateComesAfterTheAggregatesGuessedRunTime() {
    // An iteration: the wide stage 0 ends in 3 s (its running task has run 1 s; those that
    // ran longer took 4 s on average), a one-task aggregate follows, then the next wide
    // stage. The aggregate's run time is guessed from the plan's finished tasks (median 4 s of
    // 2, 4, 6 s): the wide stage comes in 3 + 4 s.
    Forecast f = DemandForecast.of(List.of(
        running(0, 0, new long[] {1_000}, new long[] {2_000, 4_000, 6_000}, 6_000, 1_000),
        next(1, 0, 1), next(2, 1, 300)), 1, 1);
    assertEquals(List.of(new UpcomingStage(1, 1, 3_000, 0.75, 1_000),
        new UpcomingStage(2, 300, 7_000, 0.75, 1_000, 2)), f.upcoming());
    // They run one after the other: the most at once is the wide stage's 300, not 301.
    assertEquals(300, f.tasksRunnableWithin(7_000));
    assertEquals(1, f.tasksRunnableWithin(6_999));

    // Behind a stage of three tasks nothing is listed: its end is timed from its own first
    // finished tasks, in time for the lookahead.
    Forecast wider = DemandForecast.of(List.of(
        running(0, 0, new long[] {1_000}, new long[] {2_000, 4_000, 6_000}, 6_000, 1_000),
        next(1, 0, 3), next(2, 1, 300)), 1, 1);
    assertEquals(1, wider.upcoming().size());
  }

  @Test
  void stagesOfOneDepthRunSideBySideAndThoseOfDifferentDepthsOneAfterTheOther() {
    Forecast f = new Forecast(DemandForecast.UNKNOWN, 0, List.of(
        new UpcomingStage(1, 10, 1_000), new UpcomingStage(2, 5, 1_000),
        new UpcomingStage(3, 12, 2_000, 1, 0, 2)), true);
    assertEquals(15, f.tasksRunnableWithin(1_000));
    assertEquals(15, f.tasksRunnableWithin(2_000));
    assertEquals(12, f.tasksOf(s -> s.stageId() != 1));
  }

  @Test
  void thePlansMedianRunTimeIsTheMiddleOfAllItsStagesFinishedTasks() {
    Random random = new Random(7);
    for (int round = 0; round < 50; round++) {
      List<StageOutlook> stages = new ArrayList<>();
      List<Long> all = new ArrayList<>();
      for (int id = 0; id < 1 + random.nextInt(4); id++) {
        long[] finished = new long[random.nextInt(40)];
        for (int i = 0; i < finished.length; i++) {
          finished[i] = random.nextInt(5) == 0 ? 2_000 : 1 + random.nextInt(100_000);
          all.add(finished[i]);
        }
        Arrays.sort(finished);
        stages.add(running(id, 0, NONE, finished, -1, -1));
      }
      Collections.sort(all);
      long expected = all.isEmpty() ? DemandForecast.UNKNOWN : all.get(all.size() / 2);
      assertEquals(expected, DemandForecast.planMedianMillis(stages), "run times " + all);
    }
  }
}
