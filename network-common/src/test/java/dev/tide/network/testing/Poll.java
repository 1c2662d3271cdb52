package dev.tide.network.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline instead of sleeping a fixed time. */
public final class Poll {
  private Poll() {}

  public static void until(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(5); // poll interval, not synchronization
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
