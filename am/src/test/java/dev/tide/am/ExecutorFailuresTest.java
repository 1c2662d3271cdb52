package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Failure windows and node exclusion, with a manual clock. */
class ExecutorFailuresTest {
  private final AtomicLong clock = new AtomicLong(0);
  private final ExecutorFailures failures = new ExecutorFailures(2, Duration.ofMinutes(60), 2,
      Duration.ofMinutes(10), clock::get);

  @Test
  void moreThanMaxFailuresWithinTheWindowIsTooMany() {
    assertFalse(failures.record("a").tooMany());
    clock.addAndGet(1000);
    assertFalse(failures.record("b").tooMany());
    ExecutorFailures.Verdict third = failures.record("c");
    assertTrue(third.tooMany());
    assertEquals(3, third.recentFailures());
    assertEquals(Map.of("a", 1, "b", 1, "c", 1), third.perNode());
  }

  @Test
  void failuresExpireAfterTheValidityInterval() {
    failures.record("a");
    failures.record("b");
    clock.addAndGet(Duration.ofMinutes(60).toMillis());
    assertEquals(0, failures.recentFailures());
    assertFalse(failures.record("c").tooMany());
  }

  @Test
  void aNodeWithRepeatedFailuresIsExcludedForAWhile() {
    assertFalse(failures.record("a").nodeExcluded());
    assertTrue(failures.record("a").nodeExcluded());
    assertTrue(failures.isExcluded("a"));
    assertFalse(failures.record("a").nodeExcluded(), "already excluded");

    clock.addAndGet(Duration.ofMinutes(10).toMillis() - 1);
    assertEquals(List.of(), failures.endExpiredExclusions());
    clock.addAndGet(1);
    assertEquals(List.of("a"), failures.endExpiredExclusions());
    assertFalse(failures.isExcluded("a"));

    // Old failures do not exclude it again at once; two new ones do.
    assertFalse(failures.record("a").nodeExcluded());
    assertTrue(failures.record("a").nodeExcluded());
  }

  @Test
  void zeroFailuresPerNodeNeverExcludes() {
    ExecutorFailures lenient = new ExecutorFailures(10, Duration.ofMinutes(60), 0,
        Duration.ofMinutes(10), clock::get);
    for (int i = 0; i < 5; i++) {
      assertFalse(lenient.record("a").nodeExcluded());
    }
  }
}
