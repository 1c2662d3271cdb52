package dev.tide.driver.jobs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/** Fixed-size records for the sort jobs' tests: made from a seed, written, read back. */
final class FixedRecordFiles {
  private FixedRecordFiles() {}

  /**
   * {@code count} records of {@code recordBytes} random bytes whose keys take only
   * {@code keyValues} values in their first byte (rest of the key zero), so equal keys occur when
   * asked for; the rest of each record is random.
   */
  static List<byte[]> records(long seed, int count, int recordBytes, int keyBytes,
      int keyValues) {
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] record = new byte[recordBytes];
      random.nextBytes(record);
      if (keyValues > 0) {
        Arrays.fill(record, 0, keyBytes, (byte) 0);
        record[0] = (byte) random.nextInt(keyValues);
      }
      records.add(record);
    }
    return records;
  }

  static Path write(Path file, List<byte[]> records) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (byte[] r : records) {
      bytes.writeBytes(r);
    }
    return Files.write(file, bytes.toByteArray());
  }

  /** The records of concatenated files' bytes, in order. */
  static List<byte[]> split(byte[] bytes, int recordBytes) {
    List<byte[]> records = new ArrayList<>();
    for (int at = 0; at < bytes.length; at += recordBytes) {
      records.add(Arrays.copyOfRange(bytes, at, at + recordBytes));
    }
    return records;
  }

  /** Records as hex strings, sorted: a multiset that ignores order. */
  static List<String> asSortedHex(List<byte[]> records) {
    return records.stream().map(r -> java.util.HexFormat.of().formatHex(r)).sorted().toList();
  }
}
