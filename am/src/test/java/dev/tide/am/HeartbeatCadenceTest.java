package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When the allocator's rounds are due, on a manual clock (200 ms fast, 3 s slow). */
class HeartbeatCadenceTest {
  private final ManualClock clock = new ManualClock(0);
  private final HeartbeatCadence cadence = new HeartbeatCadence(Duration.ofMillis(200),
      Duration.ofSeconds(3), clock::nanos);

  @Test
  void theFirstRoundIsDueAtOnceThenEveryFastIntervalWhileBusy() {
    assertEquals(0, cadence.nanosUntilDue());
    round(true);
    assertEquals(200, millisUntilDue());
    clock.advanceMillis(150);
    assertEquals(50, millisUntilDue());
    clock.advanceMillis(50);
    assertEquals(0, cadence.nanosUntilDue());
  }

  @Test
  void idleRoundsBackOffByDoublingUpToTheSlowInterval() {
    int[] expected = {400, 800, 1_600, 3_000, 3_000};
    for (int millis : expected) {
      round(false);
      assertEquals(millis, millisUntilDue());
      clock.advanceMillis(millis);
    }
    cadence.roundStarted();
    cadence.requestsChanged();
    cadence.roundDone(false);
    assertEquals(400, millisUntilDue(), "changed requests: back to the fast interval, doubled");
  }

  @Test
  void aWakeMakesTheNextRoundDueAtOnceEvenDuringARound() {
    round(false);
    cadence.wake();
    assertEquals(0, cadence.nanosUntilDue());
    cadence.roundStarted();
    cadence.wake(); // e.g. a launch failed while the round ran
    cadence.roundDone(false);
    assertEquals(0, cadence.nanosUntilDue());
    round(false);
    assertEquals(1_600, millisUntilDue(), "400, 800, 1600: each idle round doubles");
  }

  private void round(boolean busy) {
    cadence.roundStarted();
    cadence.roundDone(busy);
  }

  private long millisUntilDue() {
    return TimeUnit.NANOSECONDS.toMillis(cadence.nanosUntilDue());
  }
}
