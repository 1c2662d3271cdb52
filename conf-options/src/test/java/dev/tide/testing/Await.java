package dev.tide.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Tide's one way for a test to wait for something another thread or process does: poll a
 * condition until it holds, failing with what was awaited once the deadline passes. The short
 * pause between checks is a polling interval, not synchronization.
 */
public final class Await {
  private static final long INTERVAL_MILLIS = 10;
  private static final long MAX_INTERVAL_MILLIS = 100;

  private Await() {}

  /**
   * Returns once {@code condition} is true; throws {@link AssertionError} naming {@code what}
   * when it is still false after {@code timeout}. A condition that throws ends the wait with its
   * exception (as an {@code AssertionError} if checked).
   */
  public static void until(Duration timeout, String what, Condition condition) {
    until(timeout, () -> what, condition);
  }

  /**
   * As {@link #until(Duration, String, Condition)}, with the description made when the wait
   * fails (to show the state at that moment).
   */
  public static void until(Duration timeout, Supplier<String> what, Condition condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long interval = INTERVAL_MILLIS;
    while (!check(condition, what)) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
      }
      try {
        Thread.sleep(interval); // the polling interval, growing for slow conditions
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what.get(), e);
      }
      interval = Math.min(MAX_INTERVAL_MILLIS, interval * 2);
    }
  }

  /**
   * Polls {@code value} until it returns non-null, and returns that; as {@link #until}
   * otherwise.
   */
  public static <T> T value(Duration timeout, String what, Callable<T> value) {
    Object[] found = new Object[1];
    until(timeout, what, () -> (found[0] = value.call()) != null);
    @SuppressWarnings("unchecked")
    T result = (T) found[0];
    return result;
  }

  private static boolean check(Condition condition, Supplier<String> what) {
    try {
      return condition.holds();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new AssertionError("checking " + what.get() + " failed: " + e, e);
    }
  }

  /** A condition that may throw, for example while reading a file or asking a cluster. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }
}
