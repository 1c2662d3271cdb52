package dev.tide.driver.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The streaming checkpoint on the local FileSystem: what a resubmitted stream reads back. */
class BatchLogTest {
  @TempDir
  Path dir;

  private static StreamSource.Batch batch(long time) {
    byte[] payload = ("file-" + time).getBytes(StandardCharsets.UTF_8);
    return new StreamSource.Batch(time, List.of(new InputSplit(payload, List.of("h" + time % 3))),
        time / 1000, new byte[] {(byte) time});
  }

  private BatchLog open() throws IOException {
    Configuration conf = new Configuration();
    return BatchLog.open(conf, "file://" + dir.resolve("checkpoint"));
  }

  @Test
  void aLongStreamKeepsFewFilesAndReadsBackEveryBatchInOrder() throws IOException {
    BatchLog log = open();
    assertEquals(List.of(), log.readAll());
    int n = 2 * BatchLog.COMPACT_EVERY + 50;
    for (int i = 1; i <= n; i++) {
      log.write(batch(i * 2000L));
    }
    assertEquals(1 + 50, log.files(), "one compacted file and the batches since");
    List<StreamSource.Batch> read = open().readAll();
    assertEquals(n, read.size());
    for (int i = 0; i < n; i++) {
      StreamSource.Batch expected = batch((i + 1) * 2000L);
      StreamSource.Batch got = read.get(i);
      assertEquals(expected.timeMillis(), got.timeMillis());
      assertEquals(expected.records(), got.records());
      assertArrayEquals(expected.position(), got.position());
      assertArrayEquals(expected.splits().get(0).payload(), got.splits().get(0).payload());
      assertEquals(expected.splits().get(0).preferredHosts(),
          got.splits().get(0).preferredHosts());
    }
  }

  /** A crash after the compacted file was renamed in, before the merged files were deleted. */
  @Test
  void batchesInACompactedFileAndTheirOwnFileAreReadOnce() throws IOException {
    BatchLog log = open();
    log.readAll();
    for (int i = 1; i < BatchLog.COMPACT_EVERY; i++) {
      log.write(batch(i * 1000L));
    }
    Path checkpoint = dir.resolve("checkpoint");
    Path kept = checkpoint.resolve("batch-" + 1000L);
    Path copy = dir.resolve("kept");
    Files.copy(kept, copy);
    log.write(batch(BatchLog.COMPACT_EVERY * 1000L)); // compacts
    Files.copy(copy, kept);
    List<StreamSource.Batch> read = open().readAll();
    assertEquals(BatchLog.COMPACT_EVERY, read.size());
    assertEquals(1000L, read.get(0).timeMillis());
  }

  @Test
  void aDamagedCompactedFileIsRefusedWithItsPath() throws IOException {
    BatchLog log = open();
    log.readAll();
    for (int i = 1; i <= BatchLog.COMPACT_EVERY; i++) {
      log.write(batch(i * 1000L));
    }
    Path compacted;
    try (var files = Files.list(dir.resolve("checkpoint"))) {
      compacted = files.filter(p -> p.getFileName().toString().startsWith("compact-"))
          .findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(compacted);
    bytes[20] ^= 1;
    Files.write(compacted, bytes);
    Files.deleteIfExists(compacted.resolveSibling("." + compacted.getFileName() + ".crc"));
    IOException e = assertThrows(IOException.class, () -> open().readAll());
    assertTrue(e.getMessage().contains(compacted.getFileName().toString())
        && e.getMessage().contains("damaged"), e.getMessage());
  }
}
