package dev.tide.queue;

/**
 * A monotonic source of milliseconds for the policy's timeout; tests pass a manual one.
 * Values are only ever subtracted from each other, never read as wall time.
 */
@FunctionalInterface
public interface Clock {

  /** Milliseconds since an arbitrary, fixed origin; never decreases. */
  long millis();

  /** The JVM's monotonic clock. */
  static Clock system() {
    return () -> System.nanoTime() / 1_000_000L;
  }
}
