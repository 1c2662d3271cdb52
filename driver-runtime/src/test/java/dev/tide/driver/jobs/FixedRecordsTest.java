package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.input.FileRangeSplits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FixedRecordsTest {
  @TempDir
  Path dir;

  /** Issue 37 item 9: a record the mapper cannot decode is named by file, number and offset. */
  @Test
  void aRecordThatFailsToDecodeIsNamedByFileNumberAndByteOffset() throws Exception {
    Path file = dir.resolve("records");
    Files.write(file, new byte[] {1, 1, 2, 2, 0, 0, 4, 4});
    String path = file.toUri().toString();
    List<Byte> seen = new ArrayList<>();

    IOException e = assertThrows(IOException.class, () -> FixedRecords.forEach(
        new Configuration(), new FileRangeSplits.FileRange(path, 2, 6), 2, Long.MAX_VALUE,
        record -> {
          if (record[0] == 0) {
            throw new IllegalArgumentException("record type 0 is not known");
          }
          seen.add(record[0]);
        }));

    assertEquals(List.of((byte) 2), seen);
    assertEquals(path + ", record 3 (byte offset 4): java.lang.IllegalArgumentException: record"
        + " type 0 is not known", e.getMessage());
  }

  /** Reads every range of {@code file} split at {@code splitSize}; returns the first bytes. */
  private static List<Byte> readAllRanges(Configuration conf, String file, long splitSize,
      int recordBytes) throws IOException {
    List<Byte> seen = new ArrayList<>();
    for (dev.tide.driver.job.InputSplit split : FileRangeSplits.plan(conf, file, splitSize)) {
      FixedRecords.forEach(conf, FileRangeSplits.decode(split.payload()), recordBytes,
          Long.MAX_VALUE, record -> seen.add(record[0]));
    }
    return seen;
  }

  /** A range owns the records that start in it, so any split size reads each record once. */
  @ParameterizedTest(name = "split size {0}")
  @ValueSource(longs = {1, 3, 5, 6, 7, 29, 30, 1000})
  void everyRecordIsReadByExactlyOneRangeWhateverTheSplitSize(long splitSize)
      throws IOException {
    byte[] bytes = new byte[30];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i / 5); // six 5-byte records numbered 0..5
    }
    Path file = Files.write(dir.resolve("six"), bytes);

    assertEquals(List.of((byte) 0, (byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5),
        readAllRanges(new Configuration(), file.toUri().toString(), splitSize, 5));
  }

  @Test
  void aLimitStopsAfterThatManyRecords() throws IOException {
    Path file = Files.write(dir.resolve("four"), new byte[] {0, 0, 1, 1, 2, 2, 3, 3});
    List<Byte> seen = new ArrayList<>();

    long read = FixedRecords.forEach(new Configuration(), new FileRangeSplits.FileRange(
        file.toUri().toString(), 0, 8), 2, 3, record -> seen.add(record[0]));

    assertEquals(3, read);
    assertEquals(List.of((byte) 0, (byte) 1, (byte) 2), seen);
  }

  @Test
  void aFileThatIsNotWholeRecordsIsRefusedBeforeAnyIsRead() throws IOException {
    Path file = Files.write(dir.resolve("torn"), new byte[7]);
    List<Byte> seen = new ArrayList<>();

    IOException e = assertThrows(IOException.class, () -> FixedRecords.forEach(
        new Configuration(), new FileRangeSplits.FileRange(file.toUri().toString(), 0, 7), 2,
        Long.MAX_VALUE, record -> seen.add(record[0])));

    assertEquals(List.of(), seen);
    assertTrue(e.getMessage().endsWith("torn is 7 bytes long, not a whole number of 2-byte"
        + " records (tide.sort.recordBytes)"), e.getMessage());
  }
}
