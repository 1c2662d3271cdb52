package dev.tide.shuffle.testing;

import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes map outputs the way an executor does (temp file, then {@link MapOutputCommitter}). */
public final class MapOutputs {
  private MapOutputs() {}

  /** Distinct, recognizable bytes of one segment ("s/m/r:" repeated to {@code length}). */
  public static byte[] segment(int shuffleId, int mapId, int reduce, int length) {
    byte[] pattern = (shuffleId + "/" + mapId + "/" + reduce + ":").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = pattern[i % pattern.length];
    }
    return out;
  }

  /** Writes and commits a map output whose partition r holds {@code segment(s, m, r, lengths[r])}. */
  public static boolean write(List<Path> appDirs, int shuffleId, int mapId, int[] lengths)
      throws IOException {
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, shuffleId, mapId);
    return write(appDir, shuffleId, mapId, lengths, 1);
  }

  public static boolean write(Path appDir, int shuffleId, int mapId, int[] lengths, long attempt)
      throws IOException {
    Path temp = MapOutputCommitter.tempDataFile(appDir, shuffleId, mapId, attempt);
    long[] partitionLengths = new long[lengths.length];
    try (OutputStream out = Files.newOutputStream(temp)) {
      for (int r = 0; r < lengths.length; r++) {
        out.write(segment(shuffleId, mapId, r, lengths[r]));
        partitionLengths[r] = lengths[r];
      }
    }
    return MapOutputCommitter.commit(appDir, shuffleId, mapId, temp, partitionLengths);
  }

  /**
   * Writes and commits a map output as {@link #write(List, int, int, int[])} does, with the
   * CRC32C of each segment in its index (as a map task with checksums on does).
   */
  public static boolean writeChecksummed(List<Path> appDirs, int shuffleId, int mapId,
      int[] lengths) throws IOException {
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, shuffleId, mapId);
    Path temp = MapOutputCommitter.tempDataFile(appDir, shuffleId, mapId, 1);
    long[] partitionLengths = new long[lengths.length];
    int[] checksums = new int[lengths.length];
    try (OutputStream out = Files.newOutputStream(temp)) {
      for (int r = 0; r < lengths.length; r++) {
        byte[] segment = segment(shuffleId, mapId, r, lengths[r]);
        out.write(segment);
        partitionLengths[r] = lengths[r];
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(segment);
        checksums[r] = (int) crc.getValue();
      }
    }
    return MapOutputCommitter.commit(appDir, shuffleId, mapId, temp, partitionLengths,
        checksums);
  }

  /** The CRC32C of a segment written by {@link #writeChecksummed}. */
  public static long checksum(int shuffleId, int mapId, int reduce, int length) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(segment(shuffleId, mapId, reduce, length));
    return crc.getValue();
  }

  /** The expected bytes of partitions [start, end) of a map written by {@link #write}. */
  public static byte[] expected(int shuffleId, int mapId, int[] lengths, int start, int end) {
    int total = 0;
    for (int r = start; r < end; r++) {
      total += lengths[r];
    }
    byte[] out = new byte[total];
    int pos = 0;
    for (int r = start; r < end; r++) {
      byte[] seg = segment(shuffleId, mapId, r, lengths[r]);
      System.arraycopy(seg, 0, out, pos, seg.length);
      pos += seg.length;
    }
    return out;
  }
}
