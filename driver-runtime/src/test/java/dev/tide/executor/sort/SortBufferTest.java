package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The map side's sort buffer: what fits, and the order records are written out in. */
class SortBufferTest {
  /** Every partition's records as "key=value" strings, partitions in order. */
  private static List<List<String>> sorted(SortBuffer buffer, int partitions) throws IOException {
    List<List<String>> out = new ArrayList<>();
    List<Integer> seen = new ArrayList<>();
    buffer.writeSorted(partitions, (p, records) -> {
      seen.add(p);
      out.add(ListRecords.drain(records));
    });
    assertEquals(java.util.stream.IntStream.range(0, partitions).boxed().toList(), seen,
        "every partition once, in order");
    return out;
  }

  private static void add(SortBuffer buffer, int p, String key, String value) {
    buffer.add(p, ListRecords.bytes(key), ListRecords.bytes(value));
  }

  @Test
  void recordsComeOutByPartitionThenKeyWithEqualKeysInTheOrderAdded() throws IOException {
    SortBuffer buffer = new SortBuffer(4096);
    add(buffer, 2, "b", "1");
    add(buffer, 0, "z", "2");
    add(buffer, 2, "a", "3");
    add(buffer, 2, "b", "4");
    add(buffer, 0, "y", "5");
    add(buffer, 2, "b", "6");

    assertEquals(List.of(List.of("y=5", "z=2"), List.of(), List.of("a=3", "b=1", "b=4", "b=6")),
        sorted(buffer, 3));
  }

  /** Enough records to take the merge sort's path (runs above 16), equal keys many. */
  @Test
  void aLargeBufferSortsStablyLikeAListSort() throws IOException {
    SplittableRandom random = new SplittableRandom(11);
    SortBuffer buffer = new SortBuffer(1 << 20);
    List<List<String>> expected = List.of(new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < 2000; i++) {
      int p = random.nextInt(0, 2);
      String key = Integer.toString(random.nextInt(0, 150));
      add(buffer, p, key, Integer.toString(i));
      expected.get(p).add(key + "=" + i);
    }
    // A stable sort by key: equal keys keep their insertion order.
    for (List<String> records : expected) {
      records.sort(java.util.Comparator.comparing(r -> r.substring(0, r.indexOf('='))));
    }

    assertEquals(expected, sorted(buffer, 2));
  }

  @Test
  void keysSortAsUnsignedBytes() throws IOException {
    SortBuffer buffer = new SortBuffer(4096);
    buffer.add(0, new byte[] {(byte) 0xf0}, new byte[] {1});
    buffer.add(0, new byte[] {0x10}, new byte[] {2});
    buffer.add(0, new byte[] {0x10, 0x00}, new byte[] {3});
    List<Byte> values = new ArrayList<>();

    buffer.writeSorted(1, (p, records) -> {
      while (records.advance()) {
        values.add(records.value()[0]);
      }
    });

    assertEquals(List.of((byte) 2, (byte) 3, (byte) 1), values);
  }

  /** 4 KiB: 3 KiB for record bytes, 1 KiB of metadata for 42 records. */
  @Test
  void aRecordFitsUntilEitherTheBytesOrTheRecordSlotsRunOut() {
    SortBuffer bytes = new SortBuffer(4096);
    assertTrue(bytes.fits(1000, 2072));
    assertFalse(bytes.fits(1000, 2073));
    bytes.add(0, new byte[1000], new byte[2000]);
    assertTrue(bytes.fits(70, 2));
    assertFalse(bytes.fits(70, 3));
    assertTrue(bytes.couldFit(1000, 2072), "an empty buffer would take it");
    assertFalse(bytes.couldFit(1000, 2073), "not even an empty buffer takes it");

    SortBuffer slots = new SortBuffer(4096);
    int records = 0;
    while (slots.fits(0, 1)) {
      slots.add(0, new byte[0], new byte[1]);
      records++;
    }
    assertEquals(1024 / SortBuffer.METADATA_BYTES, records);
  }

  @Test
  void clearingEmptiesTheBufferForTheNextSpill() throws IOException {
    SortBuffer buffer = new SortBuffer(4096);
    assertTrue(buffer.isEmpty());
    add(buffer, 0, "old", "x".repeat(3000));
    assertFalse(buffer.fits(1, 100));

    buffer.clear();

    assertTrue(buffer.isEmpty());
    assertTrue(buffer.fits(1, 3000));
    add(buffer, 0, "new", "1");
    assertEquals(List.of(List.of("new=1")), sorted(buffer, 1));
  }
}
