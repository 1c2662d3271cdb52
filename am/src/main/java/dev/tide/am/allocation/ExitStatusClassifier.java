package dev.tide.am.allocation;

import dev.tide.am.allocation.ContainerOutcome.Kind;
import dev.tide.app.AppOptions;
import dev.tide.driver.conf.TideOptions;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;

/**
 * The classification of DESIGN.md "Container outcome": containers released by the AM and
 * containers YARN took away (PREEMPTED, KILLED_BY_RESOURCEMANAGER, KILLED_AFTER_APP_COMPLETION,
 * ABORTED, DISKS_FAILED) are not failures; containers that exceeded their memory (killed by YARN
 * for physical or virtual memory, -104 / -103, or the executor's own exit
 * {@value #EXECUTOR_OUT_OF_MEMORY} after a task ran out of heap) are failures, but not against
 * their node ({@link ContainerOutcome#againstNode()}), and the diagnostics name the setting to
 * raise; so is an executor whose user code called {@code System.exit} (its own exit status
 * {@value #EXECUTOR_USER_CODE_EXIT}: the task is to blame, and its failure counts towards
 * {@code tide.task.maxAttempts}); every other exit status is an executor failure against its
 * node.
 * {@code KILLED_BY_APPMASTER} counts as released by the AM. Immutable and thread-safe.
 */
public final class ExitStatusClassifier implements ContainerOutcomeClassifier {
  private final int executorMemoryMb;
  private final int memoryOverheadMb;

  /** Memory settings in MiB, quoted in the advice for containers killed for memory. */
  public ExitStatusClassifier(int executorMemoryMb, int memoryOverheadMb) {
    this.executorMemoryMb = executorMemoryMb;
    this.memoryOverheadMb = memoryOverheadMb;
  }

  /** The executor's own exit status after a task ran out of heap (ExecutorBackend's). */
  public static final int EXECUTOR_OUT_OF_MEMORY = 52;

  /**
   * The executor's own exit status after user code called {@code System.exit} (ExecutorBackend's
   * {@code EXIT_USER_CODE}): it reported the task that did to the driver first.
   */
  static final int EXECUTOR_USER_CODE_EXIT = 58;

  @Override
  public ContainerOutcome classify(int exitStatus, String yarnDiagnostics, boolean releasedByAm) {
    String yarnText = yarnDiagnostics == null || yarnDiagnostics.isBlank()
        ? "" : ": " + yarnDiagnostics.trim();
    if (releasedByAm || exitStatus == ContainerExitStatus.KILLED_BY_APPMASTER) {
      return new ContainerOutcome(Kind.RELEASED_BY_AM, false,
          "released by the ApplicationMaster (exit status " + exitStatus + ")");
    }
    switch (exitStatus) {
      case ContainerExitStatus.PREEMPTED:
        return lost("preempted by YARN", exitStatus, yarnText);
      case ContainerExitStatus.KILLED_BY_RESOURCEMANAGER:
        return lost("killed by the ResourceManager", exitStatus, yarnText);
      case ContainerExitStatus.KILLED_AFTER_APP_COMPLETION:
        return lost("killed after the application completed", exitStatus, yarnText);
      case ContainerExitStatus.ABORTED:
        return lost("aborted by YARN (container released or node lost)", exitStatus, yarnText);
      case ContainerExitStatus.DISKS_FAILED:
        return lost("lost to failed disks on its node", exitStatus, yarnText);
      case ContainerExitStatus.KILLED_EXCEEDED_PMEM:
        return new ContainerOutcome(Kind.MEMORY_EXCEEDED, true,
            "killed by YARN for exceeding its physical memory limit (exit status " + exitStatus
            + "); raise " + TideOptions.EXECUTOR_MEMORY_OVERHEAD_MB.key() + " (now "
            + memoryOverheadMb + "m) for memory used outside the heap, or "
            + AppOptions.EXECUTOR_MEMORY_MB.key() + " (now " + executorMemoryMb + "m)"
            + yarnText);
      case ContainerExitStatus.KILLED_EXCEEDED_VMEM:
        return new ContainerOutcome(Kind.MEMORY_EXCEEDED, true,
            "killed by YARN for exceeding its virtual memory limit (exit status " + exitStatus
            + "); raise " + AppOptions.EXECUTOR_MEMORY_MB.key() + " (now " + executorMemoryMb
            + "m) or " + TideOptions.EXECUTOR_MEMORY_OVERHEAD_MB.key() + " (now "
            + memoryOverheadMb + "m), or ask the cluster admin about"
            + " yarn.nodemanager.vmem-pmem-ratio" + yarnText);
      case EXECUTOR_OUT_OF_MEMORY:
        return new ContainerOutcome(Kind.MEMORY_EXCEEDED, true,
            "executor exited with status " + exitStatus + " after a task ran out of heap; raise "
            + AppOptions.EXECUTOR_MEMORY_MB.key() + " (now " + executorMemoryMb + "m)"
            + yarnText);
      case EXECUTOR_USER_CODE_EXIT:
        return new ContainerOutcome(Kind.USER_CODE_EXITED, true,
            "executor exited with status " + exitStatus + ": user code called System.exit (the"
            + " task that did fails, counted towards " + TideOptions.TASK_MAX_ATTEMPTS.key()
            + "; the node is not blamed)" + yarnText);
      default:
        return new ContainerOutcome(Kind.EXECUTOR_FAILED, true,
            "executor exited with status " + exitStatus + yarnText);
    }
  }

  private static ContainerOutcome lost(String what, int exitStatus, String yarnText) {
    return new ContainerOutcome(Kind.LOST_TO_CLUSTER, false,
        what + " (exit status " + exitStatus + ")" + yarnText);
  }
}
