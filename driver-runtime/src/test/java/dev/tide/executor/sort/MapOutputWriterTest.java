package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.RecordCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The map side on small buffers: many spills, merge passes, the combiner, a record larger than
 * the buffer, and spill files gone after success and failure. Each partition of the output is
 * checked against an independent model: every record, sorted by key (unsigned bytes), equal keys
 * in emit order.
 */
class MapOutputWriterTest {
  static final int PARTITIONS = 3;
  @TempDir Path dir;

  record Kv(byte[] key, byte[] value) {}

  private static List<Kv> randomRecords(int n, int distinctKeys, long seed) {
    Random random = new Random(seed);
    List<Kv> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] key = ("k" + random.nextInt(distinctKeys)).getBytes(StandardCharsets.UTF_8);
      if (random.nextInt(10) == 0) {
        key = new byte[] {(byte) 0xff, (byte) random.nextInt(3)}; // high bytes sort last
      }
      byte[] value = new byte[random.nextInt(40)];
      random.nextBytes(value);
      records.add(new Kv(key, value));
    }
    return records;
  }

  /** partition -> records sorted by key (stable). */
  private static List<List<Kv>> model(List<Kv> records) {
    List<List<Kv>> parts = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      parts.add(new ArrayList<>());
    }
    for (Kv kv : records) {
      parts.get(RecordCodec.partition(kv.key(), PARTITIONS)).add(kv);
    }
    for (List<Kv> part : parts) {
      part.sort((a, b) -> KeyOrder.compare(a.key(), b.key()));
    }
    return parts;
  }

  private static List<List<Kv>> read(Path data, long[] lengths) throws IOException {
    List<List<Kv>> parts = new ArrayList<>();
    long from = 0;
    for (long length : lengths) {
      List<Kv> part = new ArrayList<>();
      try (RecordInput in = new RecordInput(new FileRangeInput(data, from, from + length),
          "test")) {
        while (in.advance()) {
          part.add(new Kv(in.key(), in.value()));
        }
      }
      parts.add(part);
      from += length;
    }
    assertEquals(Files.size(data), from, "segments cover the file");
    return parts;
  }

  private static void assertSameRecords(List<List<Kv>> expected, List<List<Kv>> actual) {
    assertEquals(expected.size(), actual.size());
    for (int p = 0; p < expected.size(); p++) {
      assertEquals(expected.get(p).size(), actual.get(p).size(), "records of partition " + p);
      for (int i = 0; i < expected.get(p).size(); i++) {
        assertArrayEquals(expected.get(p).get(i).key(), actual.get(p).get(i).key());
        assertArrayEquals(expected.get(p).get(i).value(), actual.get(p).get(i).value(),
            "value " + i + " of partition " + p + " (equal keys keep their emit order)");
      }
    }
  }

  private long[] write(List<Kv> records, long buffer, Combiner combiner, Path data,
      Path spills, int[] spillCount) throws IOException {
    try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, buffer, combiner, spills)) {
      for (Kv kv : records) {
        writer.emit(kv.key(), kv.value());
      }
      long[] lengths = writer.finish(data);
      spillCount[0] = writer.spills();
      return lengths;
    }
  }

  @Test
  void outputThatFitsTheBufferIsWrittenSortedWithoutSpills() throws IOException {
    List<Kv> records = randomRecords(500, 50, 1);
    int[] spills = new int[1];
    Path data = dir.resolve("out.data");
    long[] lengths = write(records, 1 << 20, null, data, dir.resolve("spills"), spills);
    assertEquals(0, spills[0]);
    assertSameRecords(model(records), read(data, lengths));
  }

  @Test
  void manySpillsAndMergePassesGiveTheSameSortedOutput() throws IOException {
    List<Kv> records = randomRecords(20_000, 700, 2);
    int[] spills = new int[1];
    Path data = dir.resolve("out.data");
    Path spillDir = dir.resolve("spills");
    long[] lengths = write(records, 8 << 10, null, data, spillDir, spills);
    assertTrue(spills[0] > MapOutputWriter.MERGE_FACTOR, spills[0] + " spills");
    assertSameRecords(model(records), read(data, lengths));
    assertFalse(Files.exists(spillDir), "spill files deleted");
  }

  @Test
  void combinerFoldsEachKeyAcrossSpills() throws IOException {
    List<Kv> records = new ArrayList<>();
    Map<String, Long> expected = new TreeMap<>();
    Random random = new Random(3);
    for (int i = 0; i < 30_000; i++) {
      String word = "w" + random.nextInt(500);
      long count = 1 + random.nextInt(5);
      records.add(new Kv(word.getBytes(StandardCharsets.UTF_8),
          ByteBuffer.allocate(8).putLong(count).array()));
      expected.merge(word, count, Long::sum);
    }
    Combiner sum = (key, values) -> {
      long total = 0;
      while (values.hasNext()) {
        total += ByteBuffer.wrap(values.next()).getLong();
      }
      return ByteBuffer.allocate(8).putLong(total).array();
    };
    int[] spills = new int[1];
    Path data = dir.resolve("out.data");
    long[] lengths = write(records, 16 << 10, sum, data, dir.resolve("spills"), spills);
    assertTrue(spills[0] > 3, spills[0] + " spills");
    Map<String, Long> actual = new TreeMap<>();
    for (List<Kv> part : read(data, lengths)) {
      for (int i = 0; i < part.size(); i++) {
        if (i > 0) {
          assertTrue(KeyOrder.compare(part.get(i - 1).key(), part.get(i).key()) < 0,
              "one record per key, in order");
        }
        actual.put(new String(part.get(i).key(), StandardCharsets.UTF_8),
            ByteBuffer.wrap(part.get(i).value()).getLong());
      }
    }
    assertEquals(expected, actual);
  }

  @Test
  void recordLargerThanTheBufferIsSpilledAlone() throws IOException {
    List<Kv> records = new ArrayList<>(randomRecords(300, 30, 4));
    byte[] big = new byte[50_000];
    new Random(5).nextBytes(big);
    records.add(150, new Kv("big".getBytes(StandardCharsets.UTF_8), big));
    int[] spills = new int[1];
    Path data = dir.resolve("out.data");
    long[] lengths = write(records, 4 << 10, null, data, dir.resolve("spills"), spills);
    assertSameRecords(model(records), read(data, lengths));
  }

  @Test
  void spillFilesAreDeletedWhenTheTaskFails() throws IOException {
    Path spillDir = dir.resolve("spills");
    IOException failure = assertThrows(IOException.class, () -> {
      try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, 4 << 10, null, spillDir)) {
        for (Kv kv : randomRecords(5_000, 100, 6)) {
          writer.emit(kv.key(), kv.value());
        }
        assertTrue(writer.spills() > 0);
        assertTrue(Files.list(spillDir).findAny().isPresent(), "spilled to disk");
        throw new IOException("the mapper failed");
      }
    });
    assertEquals("the mapper failed", failure.getMessage());
    assertFalse(Files.exists(spillDir), "spill files deleted after the failure");
  }

  @Test
  void aByteChangedInASpillOnDiskFailsTheMergeNamingTheFile() throws IOException {
    Path spillDir = dir.resolve("spills");
    List<Kv> records = randomRecords(5_000, 100, 8);
    for (int flipAt : new int[] {100, 3000}) {
      IOException e = assertThrows(IOException.class, () -> {
        try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, 16 << 10, null, spillDir)) {
          for (Kv kv : records) {
            writer.emit(kv.key(), kv.value());
          }
          Path spill = spillDir.resolve("spill-0.run");
          byte[] bytes = Files.readAllBytes(spill);
          bytes[flipAt] ^= 0x10;
          Files.write(spill, bytes);
          writer.finish(dir.resolve("out.data"));
        }
      });
      assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains("spill-0.run"),
          e.getMessage());
      assertFalse(Files.exists(spillDir), "spill files deleted after the failure");
    }
  }

  @Test
  void fullDiskNamesTheFileAndTheRoomLeft() {
    IOException e = MapOutputWriter.diskError(dir.resolve("spill-0.run"),
        new IOException("No space left on device"));
    assertTrue(e.getMessage().contains("spill-0.run") && e.getMessage().contains("bytes free")
        && e.getMessage().contains("No space left on device"), e.getMessage());
  }

  @Test
  void aMapThatEmitsNothingWritesAnEmptyFileOfEmptySegments() throws IOException {
    Path data = dir.resolve("out.data");
    try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, 4 << 10, null,
        dir.resolve("spills"))) {
      assertThrows(IllegalStateException.class, writer::checksums, "nothing finished yet");

      assertArrayEquals(new long[PARTITIONS], writer.finish(data));

      assertArrayEquals(new int[PARTITIONS], writer.checksums(), "the CRC32C of no bytes");
      assertEquals(0, writer.records());
    }
    assertEquals(0, Files.size(data));
  }

  /** The shuffle service verifies each segment it serves against these checksums. */
  @Test
  void eachSegmentsChecksumIsTheCrc32cOfItsBytesAfterSpillsToo() throws IOException {
    Path data = dir.resolve("out.data");
    long[] lengths;
    int[] checksums;
    try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, 4 << 10, null,
        dir.resolve("spills"))) {
      for (Kv kv : randomRecords(3_000, 200, 9)) {
        writer.emit(kv.key(), kv.value());
      }
      lengths = writer.finish(data);
      checksums = writer.checksums();
      assertTrue(writer.spills() > 1, writer.spills() + " spills");
    }
    byte[] bytes = Files.readAllBytes(data);
    int from = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(bytes, from, (int) lengths[p]);
      assertEquals((int) crc.getValue(), checksums[p], "partition " + p);
      from += (int) lengths[p];
    }
  }

  @Test
  void aRangePartitionedOutputHasEveryKeyOfPartitionZeroBelowPartitionOnes() throws IOException {
    dev.tide.driver.job.RangePartitioner ranges = new dev.tide.driver.job.RangePartitioner();
    ranges.configure(dev.tide.driver.job.RangePartitioner.spec(List.of(
        "k3".getBytes(StandardCharsets.UTF_8), "k6".getBytes(StandardCharsets.UTF_8))));
    Path data = dir.resolve("out.data");
    long[] lengths;
    try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, ranges, 4 << 10, null,
        dir.resolve("spills"))) {
      for (Kv kv : randomRecords(2_000, 9, 10)) {
        writer.emit(kv.key(), kv.value());
      }
      lengths = writer.finish(data);
    }
    List<Kv> all = new ArrayList<>();
    read(data, lengths).forEach(all::addAll);
    for (int i = 1; i < all.size(); i++) {
      assertTrue(KeyOrder.compare(all.get(i - 1).key(), all.get(i).key()) <= 0,
          "partitions in key order: record " + i);
    }
    assertEquals(2_000, all.size());
  }

  @Test
  void aPartitionerThatAnswersOutOfRangeFailsTheTaskNamingIt() {
    dev.tide.driver.job.Partitioner broken = (key, partitions) -> partitions;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
      try (MapOutputWriter writer = new MapOutputWriter(PARTITIONS, broken, 4 << 10, null,
          dir.resolve("spills"))) {
        writer.emit(new byte[] {1}, new byte[0]);
      }
    });
    assertEquals("partitioner " + broken.getClass().getName() + " put a key in partition 3"
        + " of 3", e.getMessage());
  }
}
