package dev.tide.driver.alloc;

import java.util.ArrayDeque;

/**
 * Demand that new work is still raising ({@code tide.dynamicAllocation.arrivalTrend}): where
 * independent jobs keep arriving at a rising rate, the executors asked for when their tasks wait
 * come one start latency late every time; this asks for the trend's demand ahead instead.
 *
 * <p>It compares the tasks of new work (stages no forecast listed) submitted in the last start
 * latency {@code L} ({@code r1}) with those of the latency before ({@code r0}). When both saw
 * at least {@value #MIN_ARRIVALS} arrivals (one job does not make a rate) and {@code r1 > r0},
 * the rate is taken to keep rising by {@code r1 - r0} per {@code L}: from its value now
 * ({@code r1 + (r1 - r0) / 2}, {@code r1} being the mean over a window centred {@code L / 2}
 * ago) to {@code r1 + 2.5 (r1 - r0)} two start latencies from now, when the executors asked for
 * now have started and are still serving what arrives. The executors the tasks need now scale by
 * that ratio (the tasks in flight are those of the recent arrivals). A flat or falling rate, or
 * too few arrivals, asks for nothing ahead.
 *
 * <p>Not thread-safe: the driver's event loop owns it; times in milliseconds are passed in.
 */
final class ArrivalTrend {
  static final int MIN_ARRIVALS = 2;
  /** Where the rate is projected to, in start latencies from the middle of the last window. */
  static final double HORIZON_LATENCIES = 2.5;

  /** (time, tasks of new work submitted so far) at each evaluation of the last two windows. */
  private final ArrayDeque<long[]> samples = new ArrayDeque<>();

  /**
   * @param newTasksSubmitted tasks of new work submitted so far (only grows)
   * @param needNow the executors the pending and running tasks need now
   * @return the executors the trend will need two start latencies from now (more than
   *     {@code needNow}), or 0 when the rate is not rising (nothing to ask for ahead)
   */
  int executorsAhead(long nowMillis, long newTasksSubmitted, long startLatencyMillis,
      int needNow) {
    long window = Math.max(1, startLatencyMillis);
    samples.addLast(new long[] {nowMillis, newTasksSubmitted});
    while (nowMillis - samples.peekFirst()[0] > 2 * window) {
      samples.pollFirst();
    }
    long[] oldest = samples.peekFirst();
    if (nowMillis - oldest[0] < 2 * window - window / 10) {
      return 0; // not two windows of history yet
    }
    long atMiddle = oldest[1];
    int olderArrivals = 0;
    int recentArrivals = 0;
    long previous = oldest[1];
    for (long[] s : samples) {
      boolean arrived = s[1] > previous;
      previous = s[1];
      if (s[0] <= nowMillis - window) {
        atMiddle = s[1];
        olderArrivals += arrived ? 1 : 0;
      } else {
        recentArrivals += arrived ? 1 : 0;
      }
    }
    double r0 = atMiddle - oldest[1];
    double r1 = newTasksSubmitted - atMiddle;
    if (r0 <= 0 || r1 <= r0 || olderArrivals < MIN_ARRIVALS || recentArrivals < MIN_ARRIVALS) {
      return 0;
    }
    double rise = r1 - r0;
    double ratio = (r1 + HORIZON_LATENCIES * rise) / (r1 + rise / 2);
    return (int) Math.min(Integer.MAX_VALUE, Math.ceil(needNow * ratio));
  }
}
