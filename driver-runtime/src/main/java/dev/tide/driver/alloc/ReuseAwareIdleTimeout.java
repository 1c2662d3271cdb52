package dev.tide.driver.alloc;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An idle timeout that follows what bringing an executor back costs
 * ({@code tide.dynamicAllocation.adaptiveIdleTimeout}). A rent-or-buy choice: keeping an idle
 * executor costs its idle time; releasing one that is needed again after {@code g} costs a new
 * start, counted as {@value #COLD_START_WEIGHT} x the measured start latency (the new
 * container's start-up time, plus as long again of work waiting for it).
 *
 * <p>It records idle gaps: an idle executor that gets a task again after {@code g}; a released
 * executor matched to a later rise of the target (needed again after {@code g}, counted from when
 * it went idle); a released executor not needed again within {@code ceiling} (never). The timeout
 * is the one that would have cost least over the last {@value #SAMPLES} gaps: {@code g} for a gap
 * it covers, {@code timeout + coldStart} for one it does not ({@code timeout} alone if never
 * needed). With no gap recorded yet it is {@code coldStart} (the classic rent-or-buy threshold,
 * never more than twice the best choice in hindsight). Always within {@code [0, ceiling]}, the
 * configured {@code executorIdleTimeout}.
 *
 * <p>Not thread-safe: the driver's event loop owns it; times in milliseconds are passed in.
 */
final class ReuseAwareIdleTimeout {
  static final int COLD_START_WEIGHT = 2;
  static final int SAMPLES = 128;
  private static final long NEVER = Long.MAX_VALUE;

  private final long ceilingMillis;
  private final long[] gaps = new long[SAMPLES];
  private int gapCount;
  private int nextGap;
  /** Idle since when, for each executor idle at the last observation. */
  private Map<String, Long> idleSince = new HashMap<>();
  /** When each released executor, not yet matched to a rise of the target, went idle. */
  private final Deque<Long> released = new ArrayDeque<>();
  private long cachedColdStart = -1;
  private long cachedTimeout;
  private boolean changed = true;

  ReuseAwareIdleTimeout(long ceilingMillis) {
    this.ceilingMillis = ceilingMillis;
  }

  /**
   * One evaluation's observations.
   *
   * @param idle executors idle now (none pending removal)
   * @param removed executors released by this evaluation
   * @param targetRise how much the target rose in this evaluation (0 if it did not)
   */
  void observe(long nowMillis, List<IdleExecutor> idle, List<String> removed, int targetRise) {
    Set<String> gone = new HashSet<>(removed);
    Map<String, Long> now = new HashMap<>();
    for (IdleExecutor e : idle) {
      if (!gone.contains(e.executorId())) {
        now.put(e.executorId(), e.idleSinceMillis());
      }
    }
    for (Map.Entry<String, Long> was : idleSince.entrySet()) {
      String id = was.getKey();
      if (gone.contains(id)) {
        released.addLast(was.getValue());
      } else if (!now.containsKey(id) || now.get(id) != (long) was.getValue()) {
        record(nowMillis - was.getValue()); // it ran a task again
      }
    }
    for (IdleExecutor e : idle) {
      if (gone.contains(e.executorId()) && !idleSince.containsKey(e.executorId())) {
        released.addLast(e.idleSinceMillis());
      }
    }
    idleSince = now;
    // A rise of the target is matched with the most recent releases: the shortest gaps, so the
    // timeout is not pushed up by releases that any sensible timeout would have made too.
    for (int i = 0; i < targetRise && !released.isEmpty(); i++) {
      record(nowMillis - released.pollLast());
    }
    while (!released.isEmpty() && nowMillis - released.peekFirst() > ceilingMillis) {
      released.pollFirst();
      record(NEVER);
    }
  }

  private void record(long gapMillis) {
    gaps[nextGap] = gapMillis;
    nextGap = (nextGap + 1) % SAMPLES;
    gapCount = Math.min(gapCount + 1, SAMPLES);
    changed = true;
  }

  /** The idle timeout now, for a measured start latency. */
  long timeoutMillis(long startLatencyMillis) {
    long coldStart = COLD_START_WEIGHT * startLatencyMillis;
    if (!changed && coldStart == cachedColdStart) {
      return cachedTimeout;
    }
    cachedColdStart = coldStart;
    changed = false;
    cachedTimeout = gapCount == 0 ? Math.min(coldStart, ceilingMillis)
        : cheapest(Arrays.copyOf(gaps, gapCount), coldStart);
    return cachedTimeout;
  }

  /** The timeout in {0, each gap, ceiling} that would have cost least over {@code gaps}. */
  private long cheapest(long[] sample, long coldStart) {
    Arrays.sort(sample);
    long best = 0;
    double bestCost = Double.MAX_VALUE;
    long[] candidates = new long[sample.length + 2];
    candidates[0] = 0;
    candidates[1] = ceilingMillis;
    for (int i = 0; i < sample.length; i++) {
      candidates[i + 2] = Math.min(sample[i], ceilingMillis);
    }
    for (long t : candidates) {
      double cost = 0;
      for (long g : sample) {
        if (g <= t) {
          cost += g;
        } else {
          cost += g == NEVER ? t : t + coldStart;
        }
      }
      if (cost < bestCost || (cost == bestCost && t < best)) {
        bestCost = cost;
        best = t;
      }
    }
    return best;
  }

  /** Gaps recorded so far (for tests and the log). */
  int gapsRecorded() {
    return gapCount;
  }
}
