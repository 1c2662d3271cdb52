package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

  /**
   * Issue 16: an executor SIGKILLed every 3 s through a long job used to end it once more than
   * maxFailures had died, though every kill cost only a retry. Failures with a task's success
   * between them are not in a row; only failures in a row count towards the limit.
   */
  @Test
  void onlyFailuresWithNoTaskSucceedingBetweenThemCountTowardsTheLimit() {
    ExecutorFailures lenient = new ExecutorFailures(2, Duration.ofMinutes(60), 0,
        Duration.ofMinutes(10), clock::get);
    long tasksSucceeded = 0;
    for (int kill = 0; kill < 20; kill++) {
      tasksSucceeded += 3; // the job gets work done between kills
      ExecutorFailures.Verdict verdict = lenient.record("n" + kill % 3, true, tasksSucceeded);
      assertFalse(verdict.tooMany(), "kill " + kill);
      assertEquals(1, verdict.recentFailures());
    }
    // Then executors keep failing and no task succeeds: the third in a row is too many.
    assertFalse(lenient.record("n0", true, tasksSucceeded).tooMany());
    ExecutorFailures.Verdict third = lenient.record("n1", false, tasksSucceeded);
    assertTrue(third.tooMany());
    assertEquals(3, third.recentFailures());
    assertEquals(3, lenient.recentFailures());
  }

  @Test
  void failuresAgainstANodeCountTowardsItsExclusionProgressOrNot() {
    assertFalse(failures.record("a", true, 1).nodeExcluded());
    ExecutorFailures.Verdict second = failures.record("a", true, 2);
    assertTrue(second.nodeExcluded(), "2 on node a, with a task's success between them");
    assertEquals(1, second.recentFailures());
    assertEquals(Map.of("a", 2), second.perNode());
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
  void failuresNotAgainstTheNodeCountInAllButNeverExcludeIt() {
    assertFalse(failures.record("a", false).nodeExcluded());
    ExecutorFailures.Verdict second = failures.record("a", false);
    assertFalse(second.nodeExcluded(), "2 per node exclude, but these are not against it");
    assertFalse(failures.isExcluded("a"));
    assertEquals(Map.of(), second.perNode());
    assertEquals(2, second.recentFailures());
    assertFalse(failures.record("a").nodeExcluded(), "1 against it");
    ExecutorFailures.Verdict fourth = failures.record("a");
    assertTrue(fourth.nodeExcluded());
    assertTrue(fourth.tooMany(), "4 in all, more than 2");
    assertEquals(2, fourth.maxFailures());
  }

  @Test
  void theLimitIsReadAtEachFailure() {
    int[] limit = {1};
    ExecutorFailures growing = new ExecutorFailures(() -> limit[0], Duration.ofMinutes(60), 0,
        Duration.ofMinutes(10), clock::get);
    assertFalse(growing.record("a").tooMany());
    limit[0] = 3;
    assertFalse(growing.record("b").tooMany());
    assertFalse(growing.record("c").tooMany());
    assertTrue(growing.record("d").tooMany());
  }

  @Test
  void zeroFailuresPerNodeNeverExcludes() {
    ExecutorFailures lenient = new ExecutorFailures(10, Duration.ofMinutes(60), 0,
        Duration.ofMinutes(10), clock::get);
    for (int i = 0; i < 5; i++) {
      assertFalse(lenient.record("a").nodeExcluded());
    }
  }

  @Test
  void whenEveryNodeIsExcludedTheOldestExclusionIsLifted() {
    exclude("a");
    clock.addAndGet(1000);
    exclude("b");
    assertEquals(Optional.empty(), failures.liftOldestIfAllExcluded(3, Set.of()),
        "c is still usable");
    clock.addAndGet(1000);
    exclude("c");

    assertEquals(Optional.of("a"), failures.liftOldestIfAllExcluded(3, Set.of()));
    assertFalse(failures.isExcluded("a"));
    assertEquals(List.of("b", "c"), failures.excludedNodes());
    assertEquals(Optional.empty(), failures.liftOldestIfAllExcluded(3, Set.of()),
        "a is usable now");
  }

  @Test
  void aLiftedNodeIsNotExcludedAgainByItsOldFailures() {
    exclude("a");
    exclude("b");
    assertEquals(Optional.of("a"), failures.liftOldestIfAllExcluded(2, Set.of()));

    // Same millisecond as the failures that excluded it: still forgiven.
    assertFalse(failures.record("a").nodeExcluded(), "its 2 earlier failures are forgiven");
    assertTrue(failures.record("a").nodeExcluded(), "2 new failures exclude it again");
    assertEquals(Optional.of("b"), failures.liftOldestIfAllExcluded(2, Set.of()),
        "then b is the oldest");
  }

  @Test
  void exclusionsOfUnusableNodesDoNotCount() {
    exclude("a");
    exclude("lost");
    assertEquals(Optional.empty(), failures.liftOldestIfAllExcluded(2, Set.of("lost")),
        "the RM's 2 nodes are a and another, which is usable");
    exclude("b");
    assertEquals(Optional.of("a"), failures.liftOldestIfAllExcluded(2, Set.of("lost")));
  }

  @Test
  void nothingIsLiftedBeforeTheClusterSizeIsKnown() {
    exclude("a");
    assertEquals(Optional.empty(), failures.liftOldestIfAllExcluded(0, Set.of()));
    assertTrue(failures.isExcluded("a"));
  }

  /** Two failures on {@code node} (maxFailuresPerNode): excluded. */
  private void exclude(String node) {
    failures.record(node);
    assertTrue(failures.record(node).nodeExcluded(), node + " excluded");
  }
}
