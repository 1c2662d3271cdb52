package dev.tide.driver.alloc;

import java.util.Collection;
import java.util.Map;

/**
 * What the allocation policy asks of the cluster manager, and nothing more: a desired total and
 * which executors to let go. The YARN allocator implements it; the policy never sees YARN types.
 * Implementations must return at once (they hand the request to their own thread).
 */
public interface ExecutorAllocationClient {
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
}
