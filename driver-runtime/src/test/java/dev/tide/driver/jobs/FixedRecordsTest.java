package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.input.FileRangeSplits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
}
