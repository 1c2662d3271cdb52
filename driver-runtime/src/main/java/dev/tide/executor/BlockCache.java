package dev.tide.executor;

import dev.tide.driver.job.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocks of cached datasets an executor holds in memory, for the life of the application,
 * within a fixed budget ({@code tide.cache.memory}): a block is filled record by record while its
 * bytes fit, and dropped (not cached) as soon as they would not. Blocks are never evicted: the
 * driver knows where each one is. Thread-safe: task slots fill and read blocks concurrently.
 */
final class BlockCache {
  /** Bytes counted per record beyond its key and value: the arrays' and the record's headers. */
  static final int RECORD_OVERHEAD = 64;

  private final long capacity;
  private long used;
  private final Map<String, List<KeyValue>> blocks = new HashMap<>();

  BlockCache(long capacity) {
    this.capacity = capacity;
  }

  /** The block's records, or null if this executor does not hold it. */
  synchronized List<KeyValue> get(String key) {
    return blocks.get(key);
  }

  synchronized long usedBytes() {
    return used;
  }

  /** Starts filling a block; nothing is visible until {@link Filling#commit}. */
  Filling fill(String key) {
    return new Filling(key);
  }

  private synchronized boolean reserve(long bytes) {
    if (used + bytes > capacity) {
      return false;
    }
    used += bytes;
    return true;
  }

  private synchronized void release(long bytes) {
    used -= bytes;
  }

  /** One block being filled by one task. */
  final class Filling {
    private final String key;
    private List<KeyValue> records = new ArrayList<>();
    private long bytes;

    private Filling(String key) {
      this.key = key;
    }

    /** Adds a copy of the record, or gives the block up if it no longer fits. */
    void add(byte[] k, byte[] v) {
      if (records == null) {
        return;
      }
      long size = (long) k.length + v.length + RECORD_OVERHEAD;
      if (!reserve(size)) {
        abandon();
        return;
      }
      bytes += size;
      records.add(new KeyValue(k.clone(), v.clone()));
    }

    /** Makes the block visible; false if it was given up (too big) or was already there. */
    boolean commit() {
      if (records == null) {
        return false;
      }
      synchronized (BlockCache.this) {
        if (blocks.putIfAbsent(key, List.copyOf(records)) != null) {
          abandon();
          return true; // another attempt cached it first: this executor holds it
        }
      }
      records = null;
      return true;
    }

    /** Gives the block up and frees what it took; safe to call twice. */
    void abandon() {
      if (records != null) {
        records = null;
        release(bytes);
        bytes = 0;
      }
    }
  }
}
