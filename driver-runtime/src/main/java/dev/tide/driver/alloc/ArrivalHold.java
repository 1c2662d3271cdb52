package dev.tide.driver.alloc;

import java.util.Arrays;
import java.util.function.LongToIntFunction;

/**
 * How many executors to keep while new work keeps arriving
 * ({@code tide.dynamicAllocation.arrivalHold}): a rent-or-buy choice for each count of
 * executors, learnt from the arrivals of work the policy has seen.
 *
 * <p>An arrival is an evaluation that sees more tasks of new work submitted than the one before
 * (new jobs, not the stages a forecast listed: the lookahead provides for those); its width is
 * the executors those tasks need. Its gap {@code g} is how long the executors waited for it: the
 * time since the previous arrival or, when all the work before it had ended (no task pending or
 * running), since it ended, whichever is later. A job that outlasts its successor's usual gap
 * is no reason to let its executors go the moment it ends: an interactive session's next query
 * comes a think time after the last one's result, not a fixed time after its submission. Each
 * arrival after the first is a sample {@code (g, w)}: it needed {@code w} executors. Keeping
 * the {@code k}-th executor for up to {@code t} costs {@code min(g, t)} of container time; when
 * it was released ({@code g > t}) and the arrival needs it ({@code w >= k}), the arrival pays
 * {@code t} plus a cold start, counted as {@code coldStartWeight} x the measured start latency
 * (the container's start-up and the arrival's work waiting for it). The {@code k}-th executor
 * is kept for the {@code t} in {0, each gap, ceiling} that would have cost least over the last
 * {@value #SAMPLES} samples, counted from the last arrival or the end of the work after it,
 * whichever is later. So a burst of jobs a few seconds apart keeps what most of its jobs use;
 * executors only a rare wide job needs, or any once the arrivals stop for longer than their
 * usual gaps, go.
 *
 * <p>Not thread-safe: the driver's event loop owns it; times in milliseconds are passed in.
 */
final class ArrivalHold {
  static final int SAMPLES = 64;
  private static final long NOT_SET = Long.MIN_VALUE;

  private final long ceilingMillis;
  private final int coldStartWeight;
  private final long[] gaps = new long[SAMPLES];
  private final int[] widths = new int[SAMPLES];
  private int count;
  private int next;
  private long lastSubmitted;
  private long lastArrivalMillis = NOT_SET;
  /** Since when no task has been pending or running (after the last arrival), or NOT_SET. */
  private long quietSinceMillis = NOT_SET;
  /** Executor counts (the distinct widths, ascending) and how long after an arrival each stays. */
  private int[] levels = new int[0];
  private long[] keepMillis = new long[0];
  private long cachedColdStart = -1;
  private boolean changed;

  /**
   * @param ceilingMillis the longest a level is kept after an arrival ({@code
   *     executorIdleTimeout})
   * @param coldStartWeight a cold start's cost in start latencies
   */
  ArrivalHold(long ceilingMillis, int coldStartWeight) {
    this.ceilingMillis = ceilingMillis;
    this.coldStartWeight = coldStartWeight;
  }

  /**
   * One evaluation's submissions.
   *
   * @param newTasksSubmitted tasks of new work submitted so far (only grows)
   * @param executorsForTasks the executors {@code n} tasks need
   * @param workInFlight whether a task is pending or running
   */
  void observe(long nowMillis, long newTasksSubmitted, LongToIntFunction executorsForTasks,
      boolean workInFlight) {
    long arrived = newTasksSubmitted - lastSubmitted;
    lastSubmitted = Math.max(lastSubmitted, newTasksSubmitted);
    if (arrived <= 0) {
      if (workInFlight) {
        quietSinceMillis = NOT_SET;
      } else if (quietSinceMillis == NOT_SET) {
        quietSinceMillis = nowMillis;
      }
      return;
    }
    if (lastArrivalMillis != NOT_SET) {
      gaps[next] = nowMillis - waitingSince();
      widths[next] = executorsForTasks.applyAsInt(arrived);
      next = (next + 1) % SAMPLES;
      count = Math.min(count + 1, SAMPLES);
      changed = true;
    }
    lastArrivalMillis = nowMillis;
    quietSinceMillis = NOT_SET;
  }

  /** When the executors began to wait: the last arrival, or the end of the work after it. */
  private long waitingSince() {
    return quietSinceMillis != NOT_SET ? Math.max(quietSinceMillis, lastArrivalMillis)
        : lastArrivalMillis;
  }

  /**
   * Executors to keep now: the largest count whose keep time has not run out since the last
   * arrival, or since the work after it ended (0 before two arrivals).
   */
  int executorsToKeep(long nowMillis, long startLatencyMillis) {
    if (count == 0) {
      return 0;
    }
    long coldStart = coldStartWeight * startLatencyMillis;
    if (changed || coldStart != cachedColdStart) {
      recompute(coldStart);
    }
    long waited = nowMillis - waitingSince();
    int keep = 0;
    for (int i = 0; i < levels.length; i++) {
      if (keepMillis[i] >= waited && keepMillis[i] > 0) {
        keep = levels[i];
      }
    }
    return keep;
  }

  private void recompute(long coldStart) {
    cachedColdStart = coldStart;
    changed = false;
    int[] distinct = Arrays.stream(Arrays.copyOf(widths, count)).distinct().sorted().toArray();
    long[] candidates = new long[count + 2];
    candidates[0] = 0;
    candidates[1] = ceilingMillis;
    for (int i = 0; i < count; i++) {
      candidates[i + 2] = Math.min(gaps[i], ceilingMillis);
    }
    levels = distinct;
    keepMillis = new long[distinct.length];
    for (int l = 0; l < distinct.length; l++) {
      keepMillis[l] = cheapest(distinct[l], candidates, coldStart);
    }
  }

  /** The keep time in {@code candidates} that would have cost least for the level-th executor. */
  private long cheapest(int level, long[] candidates, long coldStart) {
    long best = 0;
    double bestCost = Double.MAX_VALUE;
    for (long t : candidates) {
      double cost = 0;
      for (int i = 0; i < count; i++) {
        long g = gaps[i];
        if (g <= t) {
          cost += g;
        } else {
          cost += widths[i] >= level ? t + coldStart : t;
        }
      }
      if (cost < bestCost || (cost == bestCost && t < best)) {
        bestCost = cost;
        best = t;
      }
    }
    return best;
  }
}
