package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The index cache's byte accounting: every put, replacement, removal and eviction. */
class IndexCacheTest {
  static final String APP = "application_1700000000000_0001";
  static final String OTHER = "application_1700000000000_0002";

  /** An entry with {@code partitions + 1} offsets; weight 128 + 8 * (partitions + 1). */
  private static IndexCache.Entry entry(int partitions, long modified) {
    return new IndexCache.Entry("key", 8L * (partitions + 1), modified,
        new dev.tide.shuffle.MapOutputIndex(new long[partitions + 1], null), Path.of("/d/0.data"),
        "data-key", null);
  }

  private static long weight(int partitions) {
    return IndexCache.ENTRY_OVERHEAD_BYTES + 12L * (partitions + 1);
  }

  @Test
  void bytesAreTheSumOfTheEntriesHeldThroughPutsReplacementsAndRemovals() {
    IndexCache cache = new IndexCache(1 << 20);
    IndexCache.Key a = new IndexCache.Key(APP, 0, 0);
    IndexCache.Key b = new IndexCache.Key(APP, 0, 1);
    IndexCache.Key c = new IndexCache.Key(OTHER, 0, 0);
    cache.put(a, entry(511, 1));
    cache.put(b, entry(7, 1));
    cache.put(c, entry(99, 1));
    assertEquals(weight(511) + weight(7) + weight(99), cache.bytes());
    assertEquals(3, cache.size());

    cache.put(a, entry(3, 2)); // replaced: the old entry's bytes go
    assertEquals(weight(3) + weight(7) + weight(99), cache.bytes());
    cache.remove(b);
    cache.remove(b); // twice: nothing more taken off
    assertEquals(weight(3) + weight(99), cache.bytes());
    cache.removeApplication(APP);
    assertEquals(weight(99), cache.bytes());
    assertEquals(1, cache.size());
    cache.removeApplication(OTHER);
    assertEquals(0, cache.bytes());
    assertEquals(0, cache.size());
  }

  @Test
  void leastRecentlyUsedEntriesAreEvictedToStayWithinTheBound() {
    long max = 3 * weight(15);
    IndexCache cache = new IndexCache(max);
    IndexCache.Key[] keys = new IndexCache.Key[4];
    for (int m = 0; m < keys.length; m++) {
      keys[m] = new IndexCache.Key(APP, 1, m);
    }
    cache.put(keys[0], entry(15, 1));
    cache.put(keys[1], entry(15, 1));
    cache.put(keys[2], entry(15, 1));
    assertEquals(max, cache.bytes());
    assertNotNull(cache.peek(keys[0])); // used: map 1 is now the least recently used
    cache.put(keys[3], entry(15, 1));
    assertEquals(max, cache.bytes());
    assertNull(cache.peek(keys[1]));
    assertNotNull(cache.peek(keys[0]));
    assertNotNull(cache.peek(keys[3]));

    // An entry larger than the whole cache is not kept and evicts nothing.
    cache.put(new IndexCache.Key(APP, 1, 9), entry(1000, 1));
    assertEquals(max, cache.bytes());
    assertEquals(3, cache.size());
  }

  @Test
  void anEntryIsOnlyReturnedForTheSameIndexFile() {
    IndexCache cache = new IndexCache(1 << 20);
    IndexCache.Key key = new IndexCache.Key(APP, 2, 0);
    IndexCache.Entry e = entry(3, 100);
    cache.put(key, e);
    assertSame(e, cache.get(key, "key", 32, 100));
    // A different modification time (or size, or file key): another file, and the entry goes.
    assertNull(cache.get(key, "key", 32, 101));
    assertNull(cache.peek(key));
    assertEquals(0, cache.bytes());
  }
}
