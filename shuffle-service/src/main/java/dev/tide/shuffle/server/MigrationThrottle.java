package dev.tide.shuffle.server;

import dev.tide.shuffle.client.PushExchange;
import java.util.function.LongSupplier;

/**
 * Paces the data a service sends when it copies map outputs to other services
 * ({@code tide.shuffle.migration.maxBytesPerSec}): each piece may go once the pieces before it
 * have had their time at the rate ({@code bytes / rate}); time not used is not saved up, so
 * there is no burst beyond one piece. After {@code B} bytes in pieces the last of which is
 * {@code p} bytes, at least {@code (B - p) / rate} seconds have passed since the first piece.
 * Shared by every copy of the service; thread-safe. Time and waiting come in through the
 * constructor (tests drive it with a manual clock).
 */
final class MigrationThrottle implements PushExchange.Throttle {
  /** How the sending thread waits. */
  @FunctionalInterface
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final long bytesPerSec;
  private final LongSupplier nanoClock;
  private final Sleeper sleeper;
  private final ServerStats stats;
  /** When the next piece may go, on {@link #nanoClock}'s scale. */
  private long nextFreeNanos = Long.MIN_VALUE;

  MigrationThrottle(long bytesPerSec, LongSupplier nanoClock, Sleeper sleeper, ServerStats stats) {
    if (bytesPerSec < 1) {
      throw new IllegalArgumentException("migration rate " + bytesPerSec + " bytes/s");
    }
    this.bytesPerSec = bytesPerSec;
    this.nanoClock = nanoClock;
    this.sleeper = sleeper;
    this.stats = stats;
  }

  static MigrationThrottle realTime(long bytesPerSec, ServerStats stats) {
    return new MigrationThrottle(bytesPerSec, System::nanoTime,
        nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)), stats);
  }

  @Override
  public void acquire(long bytes) throws InterruptedException {
    long wait;
    synchronized (this) {
      long now = nanoClock.getAsLong();
      if (nextFreeNanos == Long.MIN_VALUE || nextFreeNanos - now < 0) {
        nextFreeNanos = now;
      }
      wait = nextFreeNanos - now;
      nextFreeNanos += nanosFor(bytes);
    }
    if (wait > 0) {
      stats.migrationThrottled(wait);
      sleeper.sleepNanos(wait);
    }
  }

  /** The time {@code bytes} take at the rate, without overflow for any size. */
  private long nanosFor(long bytes) {
    return (long) Math.ceil(bytes * 1e9 / bytesPerSec);
  }
}
