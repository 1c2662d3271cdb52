package dev.tide.am.security;

import dev.tide.time.Clock;
import java.time.Duration;

/**
 * When the ApplicationMaster acts on the application's delegation tokens next, and how: the
 * pure part of {@link TokenRefresher}, with time from a {@link Clock}.
 *
 * <ul>
 *   <li>With a keytab, once {@link #FRACTION} (75%) of the time from when the tokens were
 *       obtained or last renewed to the earlier of their expiry and their maximum date has
 *       passed: {@link Action#RENEW} them (the AM is their renewer) when the maximum date lies
 *       at least one renewal interval beyond that moment, so the renewal gains a whole interval;
 *       otherwise {@link Action#REOBTAIN} fresh ones from the keytab.</li>
 *   <li>Without a keytab the ResourceManager renews the tokens the client obtained (it is their
 *       renewer) until their maximum date, after which nothing can make them valid:
 *       {@link Action#END} the application {@link #END_MARGIN_FRACTION} of their lifetime (at
 *       most {@link #MAX_END_MARGIN}) before that date, while its work can still be
 *       committed.</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the refresher's thread.
 */
public final class TokenSchedule {
  /** The share of a renewal interval or lifetime after which the AM acts (as Spark's 0.75). */
  public static final double FRACTION = 0.75;
  public static final double END_MARGIN_FRACTION = 0.1;
  public static final Duration MAX_END_MARGIN = Duration.ofMinutes(10);

  /** What the AM does next. */
  public enum Action { RENEW, REOBTAIN, END }

  /** {@code action} at {@code atMillis} (epoch ms). */
  public record Step(Action action, long atMillis) {}

  private final Clock clock;
  private final boolean keytab;
  private long sinceMillis;
  private long expiresMillis;
  private long maxDateMillis;

  /**
   * @param keytab whether the AM can obtain fresh tokens
   * @param expiresMillis when the tokens expire unless renewed (epoch ms; for tokens the AM
   *     cannot renew, their maximum date)
   * @param maxDateMillis the earliest maximum date of the tokens (epoch ms)
   */
  public TokenSchedule(Clock clock, boolean keytab, long expiresMillis, long maxDateMillis) {
    this.clock = clock;
    this.keytab = keytab;
    obtained(expiresMillis, maxDateMillis);
  }

  /** Fresh tokens, obtained now. */
  public void obtained(long expiresMillis, long maxDateMillis) {
    this.sinceMillis = clock.millis();
    this.expiresMillis = Math.min(expiresMillis, maxDateMillis);
    this.maxDateMillis = maxDateMillis;
  }

  /** The tokens were renewed now, to {@code expiresMillis}. */
  public void renewed(long expiresMillis) {
    this.sinceMillis = clock.millis();
    this.expiresMillis = Math.min(expiresMillis, maxDateMillis);
  }

  public long expiresMillis() {
    return expiresMillis;
  }

  public long maxDateMillis() {
    return maxDateMillis;
  }

  /** The next step. */
  public Step next() {
    if (!keytab) {
      long margin = Math.min((long) ((maxDateMillis - sinceMillis) * END_MARGIN_FRACTION),
          MAX_END_MARGIN.toMillis());
      return new Step(Action.END, maxDateMillis - Math.max(0, margin));
    }
    long at = sinceMillis + (long) ((expiresMillis - sinceMillis) * FRACTION);
    long interval = expiresMillis - sinceMillis;
    boolean renewalGainsAnInterval = maxDateMillis - at >= interval && interval > 0;
    return new Step(renewalGainsAnInterval ? Action.RENEW : Action.REOBTAIN, at);
  }

  /** How long from now until the next step (zero when it is due). */
  public Duration untilNext() {
    return Duration.ofMillis(Math.max(0, next().atMillis() - clock.millis()));
  }
}
