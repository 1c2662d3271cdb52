package dev.tide.am;

import java.util.concurrent.TimeUnit;

/**
 * A clock tests move by hand, serving both the wall-clock milliseconds (failure windows,
 * exclusions, the launch watchdog) and the monotonic nanoseconds (the heartbeat cadence) of one
 * time line. Not thread-safe: the test's thread only.
 */
public final class ManualClock {
  private long nowNanos;

  public ManualClock(long startMillis) {
    this.nowNanos = TimeUnit.MILLISECONDS.toNanos(startMillis);
  }

  public long millis() {
    return TimeUnit.NANOSECONDS.toMillis(nowNanos);
  }

  public long nanos() {
    return nowNanos;
  }

  public void advanceMillis(long millis) {
    nowNanos += TimeUnit.MILLISECONDS.toNanos(millis);
  }

  public void advanceNanos(long nanos) {
    nowNanos += nanos;
  }
}
