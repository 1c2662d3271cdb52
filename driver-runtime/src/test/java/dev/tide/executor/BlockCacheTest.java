package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.KeyValue;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An executor's cached blocks: filled whole within the budget, or not at all. */
class BlockCacheTest {
  /** Bytes a record of these sizes takes from the budget. */
  private static long cost(int key, int value) {
    return key + value + BlockCache.RECORD_OVERHEAD;
  }

  @Test
  void aCommittedBlockHoldsCopiesOfItsRecordsInOrder() {
    BlockCache cache = new BlockCache(1 << 20);
    BlockCache.Filling filling = cache.fill("points#0");
    byte[] key = {1};
    byte[] value = {2, 3};
    filling.add(key, value);
    filling.add(new byte[0], new byte[] {4});
    key[0] = 9; // the mapper reuses its arrays
    assertNull(cache.get("points#0"), "nothing visible before the commit");

    assertTrue(filling.commit());

    List<KeyValue> block = cache.get("points#0");
    assertEquals(2, block.size());
    assertArrayEquals(new byte[] {1}, block.get(0).key());
    assertArrayEquals(new byte[] {2, 3}, block.get(0).value());
    assertArrayEquals(new byte[] {4}, block.get(1).value());
    assertEquals(cost(1, 2) + cost(0, 1), cache.usedBytes());
  }

  @Test
  void aBlockThatOutgrowsTheBudgetIsGivenUpAndFreesWhatItTook() {
    BlockCache cache = new BlockCache(cost(10, 10) * 2);
    BlockCache.Filling kept = cache.fill("a#0");
    kept.add(new byte[10], new byte[10]);
    assertTrue(kept.commit());
    BlockCache.Filling big = cache.fill("a#1");
    big.add(new byte[10], new byte[10]);
    assertEquals(cost(10, 10) * 2, cache.usedBytes(), "exactly at the budget fits");

    big.add(new byte[0], new byte[0]);
    big.add(new byte[0], new byte[0]);

    assertFalse(big.commit());
    assertNull(cache.get("a#1"));
    assertEquals(cost(10, 10), cache.usedBytes());
  }

  @Test
  void aBlockCachedByAnotherAttemptFirstIsHeldOnceAndCountedOnce() {
    BlockCache cache = new BlockCache(1 << 20);
    BlockCache.Filling first = cache.fill("d#3");
    BlockCache.Filling speculative = cache.fill("d#3");
    first.add(new byte[] {1}, new byte[] {1});
    speculative.add(new byte[] {2}, new byte[] {2});

    assertTrue(first.commit());
    assertTrue(speculative.commit(), "this executor holds the block either way");

    assertArrayEquals(new byte[] {1}, cache.get("d#3").get(0).key());
    assertEquals(cost(1, 1), cache.usedBytes());
  }

  @Test
  void abandoningAFailedTaskFreesItsBytesOnce() {
    BlockCache cache = new BlockCache(1 << 20);
    BlockCache.Filling filling = cache.fill("x#0");
    filling.add(new byte[5], new byte[5]);

    filling.abandon();
    filling.abandon();
    filling.add(new byte[5], new byte[5]);

    assertEquals(0, cache.usedBytes());
    assertFalse(filling.commit());
    assertNull(cache.get("x#0"));
  }

  @Test
  void anEmptyBlockIsCachedAsEmpty() {
    BlockCache cache = new BlockCache(0);
    assertTrue(cache.fill("empty#0").commit());
    assertEquals(List.of(), cache.get("empty#0"));
  }
}
