package dev.tide.am;

/**
 * How an executor's container ended, as the allocator reports it to the driver.
 *
 * @param failure true when it counts towards {@code tide.executor.maxFailures}
 * @param diagnostics why it ended, in words a user can act on
 */
public record ContainerOutcome(Kind kind, boolean failure, String diagnostics) {
  /** The classes of DESIGN.md "Container outcome". */
  public enum Kind {
    /** The AM released (killed) the container itself. */
    RELEASED_BY_AM,
    /** YARN took the container away for reasons not the executor's own. */
    LOST_TO_CLUSTER,
    /** The NodeManager killed it for using more memory than the container allows. */
    MEMORY_EXCEEDED,
    /** The executor itself exited: any other exit status. */
    EXECUTOR_FAILED
  }
}
