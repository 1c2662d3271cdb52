package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.time.ManualClock;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/** Asking ahead for a rising arrival rate of new work, and only for a rising one. */
class ArrivalTrendTest {
  private static final long LATENCY = 1_000;

  /**
   * Evaluates every 100 ms for two start latencies with {@code submittedAt(t)} tasks of new work
   * submitted by time t; returns the last answer, for {@code needNow} executors needed now.
   */
  private static int afterTwoWindows(LongUnaryOperator submittedAt, int needNow) {
    ArrivalTrend trend = new ArrivalTrend();
    ManualClock clock = new ManualClock(50_000);
    int answer = -1;
    for (long t = 0; t <= 2 * LATENCY; t += 100) {
      answer = trend.executorsAhead(clock.millis(), submittedAt.applyAsLong(t), LATENCY,
          needNow);
      if (t < 2 * LATENCY - LATENCY / 10) {
        assertEquals(0, answer, "not two windows of history at " + t);
      }
      clock.advanceMillis(100);
    }
    return answer;
  }

  /** Jobs every 200 ms: {@code perJobFirst} tasks each in the first latency, then the second. */
  private static LongUnaryOperator jobsEvery200(int perJobFirst, int perJobThen) {
    return t -> {
      long jobs = t / 200;
      long first = Math.min(jobs, LATENCY / 200);
      return first * perJobFirst + (jobs - first) * perJobThen;
    };
  }

  /**
   * 5 tasks in the older latency, 10 in the recent one: the rate rises by 5 a latency, from
   * 12.5 now to 22.5 two latencies ahead, so the 4 executors needed now become 4 x 1.8.
   */
  @Test
  void aRisingRateAsksAheadForWhatItWillNeedWhenNewExecutorsHaveStarted() {
    assertEquals(8, afterTwoWindows(jobsEvery200(1, 2), 4));
  }

  @Test
  void aFlatOrFallingRateAsksNothingAhead() {
    assertEquals(0, afterTwoWindows(jobsEvery200(2, 2), 4));
    assertEquals(0, afterTwoWindows(jobsEvery200(3, 1), 4));
  }

  @Test
  void nothingArrivingInTheOlderWindowIsNoTrend() {
    assertEquals(0, afterTwoWindows(jobsEvery200(0, 3), 4));
  }

  /** One job in each window: a wider second job is not a rate. */
  @Test
  void oneArrivalPerWindowIsNotARate() {
    assertEquals(0, afterTwoWindows(t -> (t >= 500 ? 5 : 0) + (t >= 1500 ? 50 : 0), 4));
  }
}
