package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reduce side: segments beyond the memory budget go to disk, and the merge of all of them
 * (with merge passes when many are on disk) yields every record sorted by key, equal keys
 * adjacent; files are deleted at close.
 */
class FetchedSegmentsTest {
  @TempDir Path dir;

  /** A sorted segment of words w{start}..w{start+n} (each once), values = segment index. */
  private static byte[] segment(int index, List<String> words) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RecordOutput out = new RecordOutput(bytes);
    for (String w : words) {
      out.write(w.getBytes(StandardCharsets.UTF_8), new byte[] {(byte) index});
    }
    return bytes.toByteArray();
  }

  @Test
  void mergesSegmentsFromMemoryAndDiskInKeyOrderWithEqualKeysAdjacent() throws IOException {
    Random random = new Random(7);
    List<String> all = new ArrayList<>();
    Path spill = dir.resolve("reduce");
    int segments = 150;
    try (FetchedSegments fetched = new FetchedSegments(20_000, spill)) {
      for (int s = 0; s < segments; s++) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          words.add(String.format("w%05d", random.nextInt(3000)));
        }
        words.sort(null);
        all.addAll(words);
        byte[] bytes = segment(s, words);
        FetchedSegments.SegmentSink sink = fetched.add("segment " + s, bytes.length);
        // Arrives in pieces, as from the network.
        for (int at = 0; at < bytes.length; at += 97) {
          sink.write(ByteBuffer.wrap(bytes, at, Math.min(97, bytes.length - at)));
        }
        sink.finish();
      }
      assertTrue(fetched.inMemoryBytes() <= 20_000, "memory budget kept");
      assertTrue(fetched.onDiskBytes() > 0, "the rest went to disk");
      all.sort(null);
      List<String> merged = new ArrayList<>();
      try (SortedRecords records = fetched.merged()) {
        while (records.advance()) {
          merged.add(new String(records.key(), StandardCharsets.UTF_8));
        }
      }
      assertEquals(all, merged);
      assertTrue(fetched.mergedBytes() > 0, "more files than the merge factor: a merge pass");
      assertTrue(Files.exists(spill));
    }
    assertFalse(Files.exists(spill), "files deleted at close");
  }

  @Test
  void aByteChangedInASegmentOnDiskIsAnErrorNotWrongRecords() throws IOException {
    Path spill = dir.resolve("reduce");
    try (FetchedSegments fetched = new FetchedSegments(0, spill)) {
      byte[] bytes = segment(3, List.of("apple", "banana", "cherry"));
      FetchedSegments.SegmentSink sink = fetched.add("block 0/1/0 from h:1", bytes.length);
      sink.write(ByteBuffer.wrap(bytes));
      sink.finish();
      Path file = spill.resolve("segment-0.run");
      byte[] onDisk = Files.readAllBytes(file);
      onDisk[3] ^= 0x01; // inside "apple": the records still parse
      Files.write(file, onDisk);
      IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> {
        try (SortedRecords records = fetched.merged()) {
          while (records.advance()) {
            // read everything
          }
        }
      });
      assertTrue(e.getMessage().contains("corrupt local copy") && e.getMessage().contains(
          "block 0/1/0 from h:1"), e.getMessage());
    }
  }

  @Test
  void abandonedSegmentGivesItsMemoryBack() throws IOException {
    try (FetchedSegments fetched = new FetchedSegments(1000, dir.resolve("r"))) {
      FetchedSegments.SegmentSink sink = fetched.add("retried", 800);
      sink.write(ByteBuffer.wrap(new byte[100]));
      sink.abandon();
      assertEquals(0, fetched.inMemoryBytes());
      byte[] bytes = segment(0, List.of("a", "b"));
      FetchedSegments.SegmentSink again = fetched.add("retried", bytes.length);
      again.write(ByteBuffer.wrap(bytes));
      again.finish();
      try (SortedRecords records = fetched.merged()) {
        assertTrue(records.advance());
        assertEquals("a", new String(records.key(), StandardCharsets.UTF_8));
        assertTrue(records.advance());
        assertFalse(records.advance());
      }
    }
  }
}
