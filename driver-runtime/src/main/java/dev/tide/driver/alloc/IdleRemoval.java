package dev.tide.driver.alloc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses idle executors to remove: those idle for longer than the idle timeout, or the cached
 * idle timeout when they hold cached blocks, longest idle first, never so many that the active
 * executors drop below a floor (the policy passes {@code max(minExecutors, target, executors the
 * stages due soon need)}). Pure; times in milliseconds are passed in.
 */
final class IdleRemoval {
  private static final Comparator<IdleExecutor> LONGEST_IDLE_FIRST =
      Comparator.comparingLong(IdleExecutor::idleSinceMillis)
          .thenComparing(IdleExecutor::executorId);

  private IdleRemoval() {}

  /**
   * @param activeExecutors executors running and not already pending removal
   * @param floor the count that must remain active
   * @param idle executors with no running task (none of them pending removal)
   * @return executor ids to remove, longest idle first
   */
  static List<String> choose(long nowMillis, int activeExecutors, int floor,
      List<IdleExecutor> idle, long idleTimeoutMillis, long cachedIdleTimeoutMillis) {
    int removable = activeExecutors - floor;
    if (removable <= 0 || idle.isEmpty()) {
      return List.of();
    }
    List<IdleExecutor> expired = new ArrayList<>();
    for (IdleExecutor e : idle) {
      long timeout = e.hasCachedBlocks() ? cachedIdleTimeoutMillis : idleTimeoutMillis;
      if (nowMillis - e.idleSinceMillis() >= timeout) {
        expired.add(e);
      }
    }
    expired.sort(LONGEST_IDLE_FIRST);
    List<String> chosen = new ArrayList<>();
    for (int i = 0; i < Math.min(removable, expired.size()); i++) {
      chosen.add(expired.get(i).executorId());
    }
    return chosen;
  }
}
