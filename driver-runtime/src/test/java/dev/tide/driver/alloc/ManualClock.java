package dev.tide.driver.alloc;

import java.util.function.LongSupplier;

/** A clock tests move by hand, in milliseconds. */
public final class ManualClock implements LongSupplier {
  private long nowMillis;

  public ManualClock(long startMillis) {
    this.nowMillis = startMillis;
  }

  @Override
  public long getAsLong() {
    return nowMillis;
  }

  public long advance(long millis) {
    nowMillis += millis;
    return nowMillis;
  }
}
