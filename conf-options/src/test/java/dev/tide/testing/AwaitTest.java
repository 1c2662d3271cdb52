package dev.tide.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The one await helper: returns when the condition holds, fails naming what it waited for. */
class AwaitTest {
  @Test
  void returnsOnceTheConditionHolds() {
    AtomicInteger checks = new AtomicInteger();
    Await.until(Duration.ofMinutes(1), "the third check", () -> checks.incrementAndGet() >= 3);
    assertEquals(3, checks.get());
    assertEquals("found", Await.value(Duration.ofMinutes(1), "a value",
        () -> checks.incrementAndGet() >= 5 ? "found" : null));
  }

  @Test
  void failsNamingWhatItWaitedForWithTheStateAtTheDeadline() {
    AtomicInteger checks = new AtomicInteger();
    AssertionError e = assertThrows(AssertionError.class, () -> Await.until(Duration.ZERO,
        () -> "a condition that never holds after " + checks.get() + " checks",
        () -> checks.incrementAndGet() < 0));
    assertEquals("timed out after PT0S waiting for a condition that never holds after 1 checks",
        e.getMessage());
  }

  @Test
  void aConditionThatThrowsEndsTheWaitWithItsError() {
    AssertionError e = assertThrows(AssertionError.class, () -> Await.until(Duration.ofMinutes(1),
        "a file", () -> {
          throw new IOException("no such file");
        }));
    assertTrue(e.getMessage().contains("checking a file failed")
        && e.getCause() instanceof IOException, e.getMessage());
    IllegalStateException unchecked = new IllegalStateException("broken");
    assertEquals(unchecked, assertThrows(IllegalStateException.class,
        () -> Await.until(Duration.ofMinutes(1), "x", () -> {
          throw unchecked;
        })));
  }
}
