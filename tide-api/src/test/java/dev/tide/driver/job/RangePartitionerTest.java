package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RangePartitionerTest {
  private static RangePartitioner of(byte[]... points) {
    RangePartitioner p = new RangePartitioner();
    p.configure(RangePartitioner.spec(List.of(points)));
    return p;
  }

  @Test
  void keysGoToTheFirstRangeWhoseSplitPointIsAboveThem() {
    RangePartitioner p = of(new byte[] {10}, new byte[] {20}, new byte[] {(byte) 200});
    assertEquals(0, p.partition(new byte[] {}, 4));
    assertEquals(0, p.partition(new byte[] {9, 127}, 4));
    assertEquals(1, p.partition(new byte[] {10}, 4), "a split point starts its range");
    assertEquals(2, p.partition(new byte[] {20, 0}, 4));
    assertEquals(2, p.partition(new byte[] {(byte) 150}, 4), "bytes compare unsigned");
    assertEquals(3, p.partition(new byte[] {(byte) 255}, 4));
  }

  @Test
  void partitionsFollowKeyOrderForRandomKeys() {
    SplittableRandom random = new SplittableRandom(7);
    List<byte[]> points = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      byte[] point = new byte[3];
      random.nextBytes(point);
      points.add(point);
    }
    points.sort(Arrays::compareUnsigned);
    RangePartitioner p = of(points.toArray(new byte[0][]));
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      byte[] key = new byte[1 + random.nextInt(5)];
      random.nextBytes(key);
      keys.add(key);
    }
    keys.sort(Arrays::compareUnsigned);
    int last = 0;
    for (byte[] key : keys) {
      int partition = p.partition(key, 16);
      assertTrue(partition >= last && partition < 16, "partitions never go down along the order");
      last = partition;
    }
    assertEquals(15, last);
  }

  @Test
  void unsortedSplitPointsAreRefused() {
    RangePartitioner p = new RangePartitioner();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.configure(
        RangePartitioner.spec(List.of(new byte[] {2}, new byte[] {1}))));
    assertTrue(e.getMessage().contains("split point 1 sorts before split point 0"),
        e.getMessage());
  }
}
