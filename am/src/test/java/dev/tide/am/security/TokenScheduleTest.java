package dev.tide.am.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.security.TokenSchedule.Action;
import dev.tide.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The token schedule against a simulated NameNode (renew interval, maximum lifetime) on a
 * manual clock: with a keytab no token is ever used past its expiry or maximum date, however
 * long the application runs; without one the application ends before the maximum date.
 */
class TokenScheduleTest {
  private static final long START = 1_000_000L;

  /** A NameNode's view of one token: issued at, renewed to, maximum date. */
  private static final class SimulatedToken {
    final long maxDate;
    long expires;

    SimulatedToken(long now, Duration interval, Duration maxLifetime) {
      this.expires = now + interval.toMillis();
      this.maxDate = now + maxLifetime.toMillis();
    }

    long renew(long now, Duration interval) {
      expires = Math.min(now + interval.toMillis(), maxDate);
      return expires;
    }
  }

  @Test
  void withAKeytabTokensStayValidThroughManyLifetimes() {
    Duration interval = Duration.ofSeconds(20);
    Duration lifetime = Duration.ofSeconds(60);
    ManualClock clock = new ManualClock(START);
    SimulatedToken token = new SimulatedToken(START, interval, lifetime);
    TokenSchedule schedule = new TokenSchedule(clock, true, token.expires, token.maxDate);
    List<Action> actions = new ArrayList<>();

    while (clock.millis() < START + 3 * lifetime.toMillis() + 1) {
      TokenSchedule.Step step = schedule.next();
      assertTrue(step.atMillis() > clock.millis(), "the next step lies ahead: " + step);
      clock.advanceMillis(step.atMillis() - clock.millis());
      assertTrue(clock.millis() < token.expires && clock.millis() < token.maxDate,
          "acts before the token expires (" + token.expires + ") or ends (" + token.maxDate
              + ") at " + clock.millis());
      assertTrue(step.atMillis() - START < 3 * lifetime.toMillis() + interval.toMillis());
      actions.add(step.action());
      if (step.action() == Action.RENEW) {
        schedule.renewed(token.renew(clock.millis(), interval));
      } else {
        assertEquals(Action.REOBTAIN, step.action());
        token = new SimulatedToken(clock.millis(), interval, lifetime);
        schedule.obtained(token.expires, token.maxDate);
      }
    }
    assertTrue(actions.contains(Action.RENEW) && actions.stream()
        .filter(a -> a == Action.REOBTAIN).count() >= 3, "renewed and re-obtained: " + actions);
  }

  @Test
  void atSeventyFivePercentOfTheRenewalInterval() {
    ManualClock clock = new ManualClock(START);
    TokenSchedule schedule = new TokenSchedule(clock, true, START + 24 * 3600_000L,
        START + 7 * 24 * 3600_000L);

    assertEquals(new TokenSchedule.Step(Action.RENEW, START + 18 * 3600_000L), schedule.next());
    assertEquals(Duration.ofHours(18), schedule.untilNext());
  }

  @Test
  void nearTheMaximumDateFreshTokensInsteadOfARenewal() {
    ManualClock clock = new ManualClock(START);
    // 24 h interval, but only 30 h of lifetime left: a renewal at 18 h gains 12 h, not 24.
    TokenSchedule schedule = new TokenSchedule(clock, true, START + 24 * 3600_000L,
        START + 30 * 3600_000L);

    assertEquals(new TokenSchedule.Step(Action.REOBTAIN, START + 18 * 3600_000L),
        schedule.next());
  }

  @Test
  void withoutAKeytabTheApplicationEndsBeforeTheMaximumDate() {
    ManualClock clock = new ManualClock(START);
    TokenSchedule shortLived = new TokenSchedule(clock, false, START + 60_000, START + 60_000);
    TokenSchedule weekLong = new TokenSchedule(clock, false, START + 7 * 24 * 3600_000L,
        START + 7 * 24 * 3600_000L);

    assertEquals(new TokenSchedule.Step(Action.END, START + 54_000), shortLived.next());
    assertEquals(new TokenSchedule.Step(Action.END,
        START + 7 * 24 * 3600_000L - TokenSchedule.MAX_END_MARGIN.toMillis()), weekLong.next());
  }
}
