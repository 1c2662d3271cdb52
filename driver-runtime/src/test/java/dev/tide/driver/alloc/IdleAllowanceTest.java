package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.time.ManualClock;
import org.junit.jupiter.api.Test;

/** The idle executor time the lookahead may spend, against the busy time it earned. */
class IdleAllowanceTest {
  private final ManualClock clock = new ManualClock(0);

  /** {@code busy} executors busy and {@code idle} idle for {@code millis}, seen each minute. */
  private void spend(IdleAllowance allowance, long millis, double busy, int idle) {
    for (long left = millis; left > 0; left -= 60_000) {
      clock.advanceMillis(Math.min(60_000, left));
      allowance.observe(clock.millis(), busy, idle);
    }
  }

  @Test
  void withoutAnAllowanceNothingIsAfforded() {
    IdleAllowance none = new IdleAllowance(0);
    none.observe(clock.millis(), 0, 0);
    spend(none, 600_000, 50, 0);
    assertFalse(none.covers());
    assertFalse(none.affords(0));
  }

  /** 10 executors busy for a minute: 600 executor-seconds, half of 0.5 of it affordable. */
  @Test
  void upFrontItAffordsHalfTheAllowanceOfTheBusyTime() {
    IdleAllowance allowance = new IdleAllowance(0.5);
    allowance.observe(clock.millis(), 0, 0);
    spend(allowance, 60_000, 10, 0);

    assertTrue(allowance.affords(150_000));
    assertFalse(allowance.affords(150_001));
    assertTrue(allowance.covers());
  }

  @Test
  void idleTimeUsesTheAllowanceUp() {
    IdleAllowance allowance = new IdleAllowance(0.5);
    allowance.observe(clock.millis(), 0, 0);
    spend(allowance, 60_000, 10, 0);
    spend(allowance, 30_000, 0, 8); // 240 executor-seconds idle: under 0.5 x ~570

    assertTrue(allowance.covers());
    assertFalse(allowance.affords(60_000), "the up-front half is spent");

    spend(allowance, 30_000, 0, 8); // 480 idle: above 0.5 x ~540
    assertFalse(allowance.covers());
  }

  /**
   * Both times decay over about ten minutes: ten hours of 10 busy executors earn about as much
   * as ten minutes' worth (6,000 executor-seconds), not an hour of one idle executor up front.
   */
  @Test
  void hoursOfBusyTimeDoNotBuyHoursOfWaiting() {
    IdleAllowance allowance = new IdleAllowance(1);
    allowance.observe(clock.millis(), 0, 0);
    spend(allowance, 10 * 3_600_000L, 10, 0);

    assertTrue(allowance.affords(2_800_000));
    assertFalse(allowance.affords(3_600_000));
  }

  @Test
  void theFirstObservationAndTimeStandingStillCountNothing() {
    IdleAllowance allowance = new IdleAllowance(1);
    allowance.observe(clock.millis(), 100, 0);
    allowance.observe(clock.millis(), 100, 0);
    assertFalse(allowance.covers(), "no busy time counted yet");
    clock.advanceMillis(1_000);
    allowance.observe(clock.millis(), 1, 0);
    allowance.observe(clock.millis() - 500, 0, 1_000); // late: ignored
    assertTrue(allowance.covers());
  }
}
