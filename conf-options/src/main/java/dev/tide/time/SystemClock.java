package dev.tide.time;

import java.time.Duration;

/** {@link Clock#system()}: {@code System.currentTimeMillis}, {@code System.nanoTime}, a sleep. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }

  @Override
  public long nanos() {
    return System.nanoTime();
  }

  @Override
  public void pause(Duration duration) throws InterruptedException {
    long nanos = duration.toNanos();
    if (nanos > 0) {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
  }
}
