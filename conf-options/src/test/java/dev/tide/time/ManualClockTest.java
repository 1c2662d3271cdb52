package dev.tide.time;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The manual clock: one time line read in two units, moved by the test and by pauses. */
class ManualClockTest {
  @Test
  void millisAndNanosAreOneTimeLineThatOnlyTheTestAndPausesMove() {
    ManualClock clock = new ManualClock(1_000);
    assertEquals(1_000, clock.millis());
    assertEquals(1_000_000_000L, clock.nanos());
    clock.advance(Duration.ofMillis(250));
    assertEquals(1_250, clock.advanceMillis(0));
    clock.advanceNanos(1_500_000);
    assertEquals(1_251, clock.millis());
    assertEquals(Duration.ZERO, clock.paused());
  }

  @Test
  void aPauseMovesTheClockAtOnceAndIsCounted() {
    ManualClock clock = new ManualClock();
    clock.pause(Duration.ofSeconds(3));
    clock.pause(Duration.ofMillis(-5)); // a negative wait is no wait
    assertEquals(3_000, clock.millis());
    assertEquals(Duration.ofSeconds(3), clock.paused());
  }
}
