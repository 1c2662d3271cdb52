package dev.tide.am.allocation;

/**
 * How an executor's container ended, as the allocator reports it to the driver.
 *
 * @param failure true when it counts towards {@code tide.executor.maxFailures}
 * @param diagnostics why it ended, in words a user can act on
 */
public record ContainerOutcome(Kind kind, boolean failure, String diagnostics) {
  /**
   * Whether the failure also counts against the node it ran on
   * ({@code tide.yarn.maxFailuresPerHost}): only an executor's own failures do. A container
   * that exceeded its memory failed because of the job's settings, and one whose user code
   * called {@code System.exit} because of the job's code, which any node would meet.
   */
  public boolean againstNode() {
    return failure && kind == Kind.EXECUTOR_FAILED;
  }

  /** The classes of DESIGN.md "Container outcome". */
  public enum Kind {
    /** The AM released (killed) the container itself. */
    RELEASED_BY_AM,
    /** YARN took the container away for reasons not the executor's own. */
    LOST_TO_CLUSTER,
    /**
     * It used more memory than it may: the NodeManager killed it for exceeding the container's
     * physical or virtual memory, or the executor exited after a task ran out of heap.
     */
    MEMORY_EXCEEDED,
    /**
     * User code in one of its tasks called {@code System.exit}: the executor reported the task
     * as failed and exited with a status of its own.
     */
    USER_CODE_EXITED,
    /** The executor itself exited: any other exit status. */
    EXECUTOR_FAILED
  }
}
