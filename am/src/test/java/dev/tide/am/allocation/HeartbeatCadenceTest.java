package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.time.ManualClock;
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
    cadence.roundDone(false, false);
    assertEquals(400, millisUntilDue(), "changed requests: back to the fast interval, doubled");
  }

  @Test
  void aWakeMakesTheNextRoundDueAtOnceEvenDuringARound() {
    round(false);
    cadence.wake();
    assertEquals(0, cadence.nanosUntilDue());
    cadence.roundStarted();
    cadence.wake(); // e.g. a launch failed while the round ran
    cadence.roundDone(false, false);
    assertEquals(0, cadence.nanosUntilDue());
    round(false);
    assertEquals(1_600, millisUntilDue(), "400, 800, 1600: each idle round doubles");
  }

  @Test
  void newRequestsAreFollowedUpEvery50MillisForOneSecondWhileTheyArePending() {
    round(false);
    cadence.roundStarted();
    cadence.requestsAdded();
    cadence.roundDone(true, true);
    assertEquals(50, millisUntilDue(), "a container allocated at the next NM heartbeat is seen"
        + " within 50 ms");
    int followUps = 0;
    while (millisUntilDue() == 50) {
      clock.advanceMillis(50);
      cadence.roundStarted();
      cadence.roundDone(true, true);
      followUps++;
    }
    assertEquals(20, followUps, "one second of follow-ups");
    assertEquals(200, millisUntilDue(), "then the fast interval");

    cadence.roundStarted();
    cadence.requestsAdded();
    cadence.roundDone(true, true);
    assertEquals(50, millisUntilDue());
    clock.advanceMillis(50);
    cadence.roundStarted();
    cadence.roundDone(true, false);
    assertEquals(200, millisUntilDue(), "nothing pending any more: no follow-up");
    clock.advanceMillis(200);
    cadence.roundStarted();
    cadence.roundDone(true, true);
    assertEquals(200, millisUntilDue(), "pending again without new requests: fast interval");
  }

  private void round(boolean busy) {
    cadence.roundStarted();
    cadence.roundDone(busy, false);
  }

  private long millisUntilDue() {
    return TimeUnit.NANOSECONDS.toMillis(cadence.nanosUntilDue());
  }
}
