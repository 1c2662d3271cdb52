package dev.tide.time;

import java.time.Duration;

/**
 * Tide's one source of time, passed in through constructors so that tests can move it by hand
 * (the test-jar's {@code ManualClock}). It reads two time lines: {@link #millis()}, wall-clock
 * time for timestamps and windows a person reads, and {@link #nanos()}, monotonic time for
 * intervals. {@link #pause} is the seam where code waits: the system clock sleeps, a manual
 * clock only moves forward, so code that waits on its clock runs in a unit test without real
 * sleeping.
 */
public interface Clock {

  /** Milliseconds since the epoch (wall-clock time). */
  long millis();

  /** Nanoseconds since an arbitrary fixed origin; never decreases; only for differences. */
  long nanos();

  /** Waits {@code duration} of this clock's time. */
  void pause(Duration duration) throws InterruptedException;

  /** The JVM's clocks; {@link #pause} sleeps the calling thread. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}
