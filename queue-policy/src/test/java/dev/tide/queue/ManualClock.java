package dev.tide.queue;

import java.time.Duration;

/** A clock that moves only when a test advances it. */
final class ManualClock implements Clock {

  private long millis;

  @Override
  public synchronized long millis() {
    return millis;
  }

  synchronized void advance(Duration by) {
    millis += by.toMillis();
  }
}
