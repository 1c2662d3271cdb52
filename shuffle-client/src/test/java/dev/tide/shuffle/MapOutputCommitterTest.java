package dev.tide.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.testing.MapOutputs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MapOutputCommitterTest {
  @TempDir Path appDir;

  @Test
  void commitWritesIndexOfOffsetsAndRenamesData() throws IOException {
    assertTrue(MapOutputs.write(appDir, 3, 7, new int[] {5, 0, 12}, 1));
    Path data = ShuffleLayout.dataFile(appDir, 3, 7);
    Path index = ShuffleLayout.indexFile(appDir, 3, 7);
    assertArrayEquals(MapOutputs.expected(3, 7, new int[] {5, 0, 12}, 0, 3), Files.readAllBytes(data));
    MapOutputIndex read = MapOutputIndex.decode(Files.readAllBytes(index), index.toString());
    assertArrayEquals(new long[] {0, 5, 5, 17}, read.offsets());
    assertEquals(MapOutputIndex.fileLength(3, false), Files.size(index),
        "MapOutputs.write commits without checksums");
    assertTrue(Files.isReadable(data) && Files.isReadable(index));
    assertEquals(List.of(), tempFiles(), "no temp files left");
  }

  @Test
  void firstCommittedAttemptWins() throws IOException {
    assertTrue(MapOutputs.write(appDir, 0, 1, new int[] {4, 4}, 1));
    assertFalse(MapOutputs.write(appDir, 0, 1, new int[] {9, 1, 3}, 2));
    assertArrayEquals(MapOutputs.expected(0, 1, new int[] {4, 4}, 0, 2),
        Files.readAllBytes(ShuffleLayout.dataFile(appDir, 0, 1)));
    assertEquals(MapOutputIndex.fileLength(2, false),
        Files.size(ShuffleLayout.indexFile(appDir, 0, 1)));
    assertEquals(List.of(), tempFiles(), "the losing attempt's temp file is deleted");
  }

  @Test
  void concurrentAttemptsCommitExactlyOnce() throws Exception {
    int attempts = 8;
    ExecutorService pool = Executors.newFixedThreadPool(attempts);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Boolean>> results = new ArrayList<>();
    for (int a = 0; a < attempts; a++) {
      int[] lengths = {100 + a, 50 * a};
      long attempt = a;
      Callable<Boolean> task = () -> {
        go.await();
        return MapOutputs.write(appDir, 5, 5, lengths, attempt);
      };
      results.add(pool.submit(task));
    }
    go.countDown();
    int winners = 0;
    int winner = -1;
    for (int a = 0; a < attempts; a++) {
      if (results.get(a).get()) {
        winners++;
        winner = a;
      }
    }
    pool.shutdown();
    assertEquals(1, winners);
    int[] lengths = {100 + winner, 50 * winner};
    assertArrayEquals(MapOutputs.expected(5, 5, lengths, 0, 2),
        Files.readAllBytes(ShuffleLayout.dataFile(appDir, 5, 5)));
    Path index = ShuffleLayout.indexFile(appDir, 5, 5);
    assertArrayEquals(new long[] {0, lengths[0], lengths[0] + lengths[1]},
        MapOutputIndex.decode(Files.readAllBytes(index), index.toString()).offsets());
    assertEquals(List.of(), tempFiles());
  }

  @Test
  void lengthsThatDoNotMatchTheDataAreRefused() throws IOException {
    Path temp = MapOutputCommitter.tempDataFile(appDir, 1, 1, 1);
    Files.write(temp, new byte[10]);
    IOException e = assertThrows(IOException.class,
        () -> MapOutputCommitter.commit(appDir, 1, 1, temp, new long[] {3, 3}));
    assertTrue(e.getMessage().contains("1/1"), e.getMessage());
    assertFalse(Files.exists(ShuffleLayout.indexFile(appDir, 1, 1)));
  }

  private List<Path> tempFiles() throws IOException {
    try (Stream<Path> files = Files.walk(appDir)) {
      return files.filter(p -> p.getFileName().toString().contains(".tmp-")).toList();
    }
  }

  @Test
  void aDamagedCommittedOutputIsReplacedAndAnIntactOneIsKept() throws IOException {
    Path temp = MapOutputCommitter.tempDataFile(appDir, 2, 0, 1);
    byte[] bytes = "aaaaabbbbbbbbbb".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Files.write(temp, bytes);
    long[] lengths = {5, 10};
    int[] checksums = {crc(bytes, 0, 5), crc(bytes, 5, 10)};
    assertTrue(MapOutputCommitter.commit(appDir, 2, 0, temp, lengths, checksums));
    Path data = ShuffleLayout.dataFile(appDir, 2, 0);

    Path second = MapOutputCommitter.tempDataFile(appDir, 2, 0, 2);
    Files.write(second, bytes);
    assertFalse(MapOutputCommitter.commit(appDir, 2, 0, second, lengths, checksums),
        "an intact output stays");

    byte[] damaged = bytes.clone();
    damaged[7] ^= 0x04;
    Files.write(data, damaged);
    Path third = MapOutputCommitter.tempDataFile(appDir, 2, 0, 3);
    Files.write(third, bytes);
    assertTrue(MapOutputCommitter.commit(appDir, 2, 0, third, lengths, checksums),
        "a rerun replaces a damaged output");
    assertArrayEquals(bytes, Files.readAllBytes(data));
    assertEquals(List.of(), tempFiles());
  }

  private static int crc(byte[] b, int off, int len) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b, off, len);
    return (int) crc.getValue();
  }
}
