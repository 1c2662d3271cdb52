package dev.tide.shuffle.server;

import dev.tide.shuffle.MapOutputIndex;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Least-recently-used cache of parsed index files, bounded by the bytes of offsets it holds.
 * An entry is only used while the index file on disk is the one it was read from: either the
 * index file has the same file key, size and modification time ({@link #get}), or its shuffle
 * directory has not changed since that was last seen ({@link Entry#dirStamp}, checked by
 * {@link MapOutputResolver}). So a recomputed map output is never served stale offsets.
 * Thread-safe (synchronized; entries are immutable).
 */
final class IndexCache {
  record Key(String appId, int shuffleId, int mapId) {}

  /**
   * Offsets read from one index file, with the identity of that file, and the data file that
   * was checked complete against them. The index is the commit marker of a map output: while the
   * same index file is in place its data file is the one checked here, so the data file is not
   * looked up again.
   */
  record Entry(Object fileKey, long size, long modifiedMillis, MapOutputIndex index,
      Path dataFile, Object dataFileKey, DirStamp dirStamp) {
    /**
     * The same entry, known to be current while its shuffle directory still has {@code stamp}
     * (null: not known, check the index file itself).
     */
    Entry withDirStamp(DirStamp stamp) {
      return new Entry(fileKey, size, modifiedMillis, index, dataFile, dataFileKey, stamp);
    }

    /** Bytes charged to the cache: offsets, checksums and an allowance for the objects. */
    long weight() {
      return ENTRY_OVERHEAD_BYTES + 12L * (index.partitions() + 1);
    }

    boolean sameFile(Object otherKey, long otherSize, long otherModified) {
      return size == otherSize && modifiedMillis == otherModified
          && (fileKey == null ? otherKey == null : fileKey.equals(otherKey));
    }
  }

  /** Charged per entry besides its offsets: key, entry, array header, paths shared with others. */
  static final long ENTRY_OVERHEAD_BYTES = 128;

  private final long maxBytes;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  IndexCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * What a directory looked like: its file key and modification time (nanoseconds since the
   * epoch). Creating, renaming or deleting a file in it changes the time, so while a directory
   * keeps its stamp no index file in it was replaced.
   */
  record DirStamp(Object fileKey, long modifiedNanos) {}

  /** The entry as it is, without checking it against the disk (the caller does), or null. */
  synchronized Entry peek(Key key) {
    return entries.get(key);
  }

  synchronized Entry get(Key key, Object fileKey, long size, long modifiedMillis) {
    Entry e = entries.get(key);
    if (e == null) {
      return null;
    }
    if (!e.sameFile(fileKey, size, modifiedMillis)) {
      remove(key);
      return null;
    }
    return e;
  }

  synchronized void put(Key key, Entry entry) {
    if (entry.weight() > maxBytes) {
      return;
    }
    remove(key);
    entries.put(key, entry);
    bytes += entry.weight();
    Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      bytes -= it.next().getValue().weight();
      it.remove();
    }
  }

  synchronized void remove(Key key) {
    Entry old = entries.remove(key);
    if (old != null) {
      bytes -= old.weight();
    }
  }

  synchronized void removeApplication(String appId) {
    Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Key, Entry> e = it.next();
      if (e.getKey().appId().equals(appId)) {
        bytes -= e.getValue().weight();
        it.remove();
      }
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return entries.size();
  }
}
