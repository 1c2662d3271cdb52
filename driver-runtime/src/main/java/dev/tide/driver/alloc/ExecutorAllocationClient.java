package dev.tide.driver.alloc;

import java.util.Collection;
import java.util.Map;

/**
 * What the allocation policy asks of the cluster manager, and nothing more: a desired total and
 * which executors to let go, plus a hint of how many more the cluster could grant now. The YARN
 * allocator implements it; the policy never sees YARN types. Implementations must return at once
 * (they hand the request to their own thread).
 */
public interface ExecutorAllocationClient extends ClusterHeadroom {
  /**
   * Declares how many executors the driver wants in total (running + starting + requested).
   *
   * @param localityAwareTasks pending tasks that have host preferences
   * @param hostToLocalTaskCount for each host, how many pending tasks prefer it
   */
  void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount);

  /** Kills these executors and releases their containers; they are never counted as failures. */
  void killExecutors(Collection<String> executorIds);

  /**
   * The driver declared this executor lost (silent past {@code tide.executor.heartbeatTimeout}
   * while its container still runs): kill it and release its container, which, unlike
   * {@link #killExecutors}, counts as an executor failure, since a JVM that stops answering is
   * as broken as one that exits with an error. {@code reason} says why, for the failure's
   * diagnostics. The default only kills it.
   */
  default void killLostExecutor(String executorId, String reason) {
    killExecutors(java.util.List.of(executorId));
  }

  /**
   * {@inheritDoc}
   *
   * <p>The default knows no limit ({@link Integer#MAX_VALUE}). The YARN allocator overrides it
   * with the queue's headroom from its last allocate response, following the contract of
   * {@link ClusterHeadroom}.
   */
  @Override
  default int grantableExecutors() {
    return Integer.MAX_VALUE;
  }
}
