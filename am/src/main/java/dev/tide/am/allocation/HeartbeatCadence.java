package dev.tide.am.allocation;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * When the allocator's next round (one heartbeat to the RM) is due: at once when woken (the
 * target or hints changed, an executor was killed or failed to launch or register), every
 * {@code fast} interval (200 ms in production) while anything is pending, starting or released
 * but not yet reported completed (the RM reports a released container on the heartbeat after
 * the release), else at intervals doubling up to {@code slow} (3 s).
 *
 * <p>After a round that asked for new containers, the rounds come every quarter of the fast
 * interval (50 ms) for five fast intervals (1 s) while requests are pending: the RM allocates at
 * a NodeManager's heartbeat, and the AM only sees the container at its own next one, so this cuts
 * the wait for the first containers of a ramp-up from up to 200 ms to up to 50 ms, at the cost
 * of at most 20 extra heartbeats per ramp-up.
 *
 * <p>Time comes from a monotonic nanosecond clock ({@code System::nanoTime}; a manual one in
 * tests). Not thread-safe: the allocator thread only.
 */
public final class HeartbeatCadence {
  private final long fastMillis;
  private final long slowMillis;
  private final LongSupplier nanoClock;
  private long intervalMillis;
  private long nextDueNanos;
  private boolean woken = true;
  /** Until when (nanos) the rounds follow up quickly on new requests; 0: not following up. */
  private long followUpUntilNanos;

  public HeartbeatCadence(Duration fast, Duration slow, LongSupplier nanoClock) {
    this.fastMillis = fast.toMillis();
    this.slowMillis = Math.max(fastMillis, slow.toMillis());
    this.nanoClock = nanoClock;
    this.intervalMillis = fastMillis;
    this.nextDueNanos = nanoClock.getAsLong();
  }

  /** The next round is due at once. */
  public void wake() {
    woken = true;
  }

  /** Nanoseconds until the next round is due; 0 when it is due now. */
  public long nanosUntilDue() {
    if (woken) {
      return 0;
    }
    return Math.max(0, nextDueNanos - nanoClock.getAsLong());
  }

  /** A round starts: wakes from now on ask for the next one. */
  public void roundStarted() {
    woken = false;
  }

  /** The round changed the requests: back to the fast interval. */
  public void requestsChanged() {
    intervalMillis = fastMillis;
  }

  /** The round asked for new containers: follow up quickly while they are pending. */
  public void requestsAdded() {
    requestsChanged();
    followUpUntilNanos = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(5 * fastMillis);
  }

  /**
   * The round is over; the next is due after the fast interval while {@code busy} (a quarter of
   * it while following up on new requests that are still {@code pending}), else after twice the
   * last interval, at most the slow one.
   */
  public void roundDone(boolean busy, boolean pending) {
    long now = nanoClock.getAsLong();
    if (!pending || now >= followUpUntilNanos) {
      followUpUntilNanos = 0; // granted, cancelled or a second passed: until the next new ones
    }
    boolean followingUp = followUpUntilNanos != 0;
    intervalMillis = busy ? fastMillis : Math.min(slowMillis, intervalMillis * 2);
    long nextMillis = followingUp ? Math.max(1, fastMillis / 4) : intervalMillis;
    nextDueNanos = now + TimeUnit.MILLISECONDS.toNanos(nextMillis);
  }
}
