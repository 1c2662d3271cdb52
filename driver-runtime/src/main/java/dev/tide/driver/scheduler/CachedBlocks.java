package dev.tide.driver.scheduler;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Which executor holds each block of a cached dataset (split {@code index} of dataset
 * {@code name}), as the executors reported when their tasks ended; forgotten when the executor
 * goes. Owned by {@link JobScheduler}'s thread.
 */
final class CachedBlocks {
  private final Map<String, String> holders = new HashMap<>();
  private final Map<String, Integer> blocksPerExecutor = new HashMap<>();

  private static String key(String dataset, int index) {
    return dataset + "#" + index;
  }

  /** The executor that holds the block, or null. */
  String holder(String dataset, int index) {
    return holders.get(key(dataset, index));
  }

  /** Records whether {@code executorId} now holds the block after reading it. */
  void reported(String dataset, int index, String executorId, boolean holds) {
    String key = key(dataset, index);
    if (holds) {
      String before = holders.put(key, executorId);
      if (!executorId.equals(before)) {
        blocksPerExecutor.merge(executorId, 1, Integer::sum);
        if (before != null) {
          blocksPerExecutor.computeIfPresent(before, (k, n) -> n > 1 ? n - 1 : null);
        }
      }
    } else if (executorId.equals(holders.get(key))) {
      holders.remove(key);
      blocksPerExecutor.computeIfPresent(executorId, (k, n) -> n > 1 ? n - 1 : null);
    }
  }

  boolean holdsAny(String executorId) {
    return blocksPerExecutor.containsKey(executorId);
  }

  /** Forgets the blocks of an executor that is gone; returns how many it held. */
  int executorLost(String executorId) {
    int lost = 0;
    for (Iterator<String> it = holders.values().iterator(); it.hasNext(); ) {
      if (it.next().equals(executorId)) {
        it.remove();
        lost++;
      }
    }
    blocksPerExecutor.remove(executorId);
    return lost;
  }
}
