package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.allocation.ContainerOutcome.Kind;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every row of DESIGN.md "Container outcome". */
class ExitStatusClassifierTest {
  private final ExitStatusClassifier classifier = new ExitStatusClassifier(512, 256);

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 137, 143, ContainerExitStatus.ABORTED,
      ContainerExitStatus.KILLED_EXCEEDED_PMEM, ContainerExitStatus.INVALID})
  void releasedByTheAmIsNeverAFailure(int exitStatus) {
    ContainerOutcome outcome = classifier.classify(exitStatus, "whatever", true);
    assertEquals(Kind.RELEASED_BY_AM, outcome.kind());
    assertFalse(outcome.failure());
  }

  @Test
  void killedByTheAppMasterCountsAsReleased() {
    ContainerOutcome outcome =
        classifier.classify(ContainerExitStatus.KILLED_BY_APPMASTER, "", false);
    assertEquals(Kind.RELEASED_BY_AM, outcome.kind());
    assertFalse(outcome.failure());
  }

  @ParameterizedTest
  @ValueSource(ints = {ContainerExitStatus.PREEMPTED, ContainerExitStatus.KILLED_BY_RESOURCEMANAGER,
      ContainerExitStatus.KILLED_AFTER_APP_COMPLETION, ContainerExitStatus.ABORTED,
      ContainerExitStatus.DISKS_FAILED})
  void takenAwayByYarnIsNotAFailure(int exitStatus) {
    ContainerOutcome outcome = classifier.classify(exitStatus, "node went away", false);
    assertEquals(Kind.LOST_TO_CLUSTER, outcome.kind());
    assertFalse(outcome.failure());
    assertFalse(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("exit status " + exitStatus), outcome::toString);
    assertTrue(outcome.diagnostics().contains("node went away"), outcome::toString);
  }

  @Test
  void physicalMemoryExceededIsAFailureNotAgainstTheNodeNamingTheOverheadSetting() {
    ContainerOutcome outcome = classifier.classify(ContainerExitStatus.KILLED_EXCEEDED_PMEM,
        "Container is running beyond physical memory limits", false);
    assertEquals(Kind.MEMORY_EXCEEDED, outcome.kind());
    assertTrue(outcome.failure());
    assertFalse(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("tide.executor.memoryOverhead (now 256m)"),
        outcome::diagnostics);
    assertTrue(outcome.diagnostics().contains("beyond physical memory"), outcome::diagnostics);
  }

  @Test
  void virtualMemoryExceededIsAFailureNotAgainstTheNodeNamingTheMemorySetting() {
    ContainerOutcome outcome =
        classifier.classify(ContainerExitStatus.KILLED_EXCEEDED_VMEM, "", false);
    assertEquals(Kind.MEMORY_EXCEEDED, outcome.kind());
    assertTrue(outcome.failure());
    assertFalse(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("tide.executor.memory (now 512m)"),
        outcome::diagnostics);
  }

  @Test
  void executorThatRanOutOfHeapIsAFailureNotAgainstTheNodeNamingTheMemorySetting() {
    ContainerOutcome outcome = classifier.classify(52, "", false);
    assertEquals(Kind.MEMORY_EXCEEDED, outcome.kind());
    assertTrue(outcome.failure());
    assertFalse(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("ran out of heap")
        && outcome.diagnostics().contains("tide.executor.memory (now 512m)"),
        outcome::diagnostics);
  }

  @Test
  void executorWhoseUserCodeCalledSystemExitIsAFailureNotAgainstTheNodeSayingSo() {
    ContainerOutcome outcome = classifier.classify(58, "Executor 3 exits: user code called"
        + " System.exit in task map 0 (stage 0, attempt 0)", false);
    assertEquals(Kind.USER_CODE_EXITED, outcome.kind());
    assertTrue(outcome.failure());
    assertFalse(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("status 58: user code called System.exit"),
        outcome::diagnostics);
    assertTrue(outcome.diagnostics().contains("in task map 0"), outcome::diagnostics);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 50, 137, 143, 0, ContainerExitStatus.INVALID,
      ContainerExitStatus.KILLED_FOR_EXCESS_LOGS})
  void anythingElseIsAFailure(int exitStatus) {
    ContainerOutcome outcome = classifier.classify(exitStatus, "Exception in thread main", false);
    assertEquals(Kind.EXECUTOR_FAILED, outcome.kind());
    assertTrue(outcome.failure());
    assertTrue(outcome.againstNode());
    assertTrue(outcome.diagnostics().contains("status " + exitStatus), outcome::diagnostics);
    assertTrue(outcome.diagnostics().contains("Exception in thread main"), outcome::diagnostics);
  }
}
