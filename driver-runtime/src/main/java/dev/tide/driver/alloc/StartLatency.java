package dev.tide.driver.alloc;

import java.util.Arrays;

/**
 * The measured executor start latency: from a container's allocation to the executor's
 * registration with the driver. Keeps the last {@value #WINDOW} measurements and answers their
 * 75th percentile, so that a request made that long ahead is usually in time and one slow start
 * does not move the estimate much. Before the first measurement it answers
 * {@value #ASSUMED_MILLIS} ms. Not thread-safe: the driver's event loop owns it.
 */
final class StartLatency {
  static final long ASSUMED_MILLIS = 3_000;
  private static final int WINDOW = 32;

  private final long[] recent = new long[WINDOW];
  private int count;
  private int next;
  private long estimate = ASSUMED_MILLIS;

  void measured(long millis) {
    recent[next] = Math.max(0, millis);
    next = (next + 1) % WINDOW;
    count = Math.min(count + 1, WINDOW);
    long[] sorted = Arrays.copyOf(recent, count);
    Arrays.sort(sorted);
    estimate = sorted[(int) Math.min(count - 1, Math.ceil(0.75 * count) - 1)];
  }

  long millis() {
    return estimate;
  }

  boolean isMeasured() {
    return count > 0;
  }
}
