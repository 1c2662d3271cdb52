package dev.tide.time;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Clock} that moves only when a test moves it, or when code under test
 * {@linkplain #pause pauses} on it (the pause advances the clock at once instead of sleeping).
 * Both of its time lines are one: {@link #millis()} is {@link #nanos()} in milliseconds.
 * Thread-safe, so a test may move it while the code under test reads it on another thread.
 */
public final class ManualClock implements Clock {
  private long nowNanos;
  private long pausedNanos;

  /** A clock at zero. */
  public ManualClock() {
    this(0);
  }

  public ManualClock(long startMillis) {
    this.nowNanos = TimeUnit.MILLISECONDS.toNanos(startMillis);
  }

  @Override
  public synchronized long millis() {
    return TimeUnit.NANOSECONDS.toMillis(nowNanos);
  }

  @Override
  public synchronized long nanos() {
    return nowNanos;
  }

  /** Advances the clock by {@code duration} at once. */
  @Override
  public synchronized void pause(Duration duration) {
    long nanos = Math.max(0, duration.toNanos());
    nowNanos += nanos;
    pausedNanos += nanos;
  }

  /** The time code under test spent in {@link #pause} so far. */
  public synchronized Duration paused() {
    return Duration.ofNanos(pausedNanos);
  }

  public synchronized void advance(Duration by) {
    nowNanos += by.toNanos();
  }

  /** Advances by {@code millis}; returns the new {@link #millis()}. */
  public synchronized long advanceMillis(long millis) {
    nowNanos += TimeUnit.MILLISECONDS.toNanos(millis);
    return millis();
  }

  public synchronized void advanceNanos(long nanos) {
    nowNanos += nanos;
  }
}
