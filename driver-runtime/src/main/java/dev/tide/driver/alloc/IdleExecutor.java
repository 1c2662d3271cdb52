package dev.tide.driver.alloc;

/**
 * An executor with no running task, and since when, as the scheduler reports it
 * ({@link SchedulerView#idleExecutors}).
 *
 * @param hasCachedBlocks whether it holds blocks of a cached dataset (kept until
 *     {@code cachedExecutorIdleTimeout} by the allocation policy)
 */
public record IdleExecutor(String executorId, long idleSinceMillis, boolean hasCachedBlocks) {
  public IdleExecutor(String executorId, long idleSinceMillis) {
    this(executorId, idleSinceMillis, false);
  }
}
