package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.JobContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What sortvalidate reports for a correct sort, and what it names in a wrong one. */
class SortValidateJobTest {
  private static final int RECORD = 100;
  private static final int KEY = 10;

  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();
  private List<byte[]> input;
  private Path sorted;

  @BeforeEach
  void writeInput() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    input = new ArrayList<>(FixedRecordFiles.records(7, 60, RECORD, KEY, 0));
    FixedRecordFiles.write(in.resolve("a"), input.subList(0, 25));
    FixedRecordFiles.write(in.resolve("b"), input.subList(25, 60));
    sorted = Files.createDirectories(dir.resolve("sorted"));
  }

  private static List<byte[]> sortedByKey(List<byte[]> records) {
    List<byte[]> copy = new ArrayList<>(records);
    copy.sort((x, y) -> Arrays.compareUnsigned(x, 0, KEY, y, 0, KEY));
    return copy;
  }

  /** Writes {@code records} into consecutive parts of the given sizes. */
  private void writeParts(List<byte[]> records, int... sizes) throws Exception {
    int at = 0;
    for (int p = 0; p < sizes.length; p++) {
      FixedRecordFiles.write(sorted.resolve(String.format("part-r-%05d", p)),
          records.subList(at, at + sizes[p]));
      at += sizes[p];
    }
    Files.writeString(sorted.resolve("_SUCCESS"), "");
  }

  private String validate() throws Exception {
    LocalPlanRunner runner = new LocalPlanRunner(conf, List.of(dir.resolve("in").toString(),
        sorted.toString(), dir.resolve("report").toString()));
    Map<String, byte[]> report = runner.run(new SortValidateJob().plan(runner.context()));
    assertEquals(List.of("part-r-00000"), List.copyOf(report.keySet()));
    return new String(report.get("part-r-00000"), StandardCharsets.UTF_8);
  }

  private String failure() {
    return assertThrows(IllegalStateException.class, this::validate).getMessage();
  }

  private static long checksum(List<byte[]> records) {
    long sum = 0;
    for (byte[] r : records) {
      CRC32 crc = new CRC32();
      crc.update(r);
      sum += crc.getValue();
    }
    return sum;
  }

  @Test
  void aCorrectSortIsReportedWithItsCountChecksumAndFiles() throws Exception {
    writeParts(sortedByKey(input), 20, 15, 25);

    assertEquals("records 60\nchecksum " + Long.toHexString(checksum(input))
        + "\nfiles 3\nordered yes\n", validate());
  }

  /** An empty part (a reducer whose range got no keys) gives no split: it is not counted. */
  @Test
  void anEmptyPartIsValidButNotCountedAsAFile() throws Exception {
    writeParts(sortedByKey(input), 20, 0, 40);

    assertTrue(validate().contains("\nfiles 2\nordered yes\n"));
  }

  @Test
  void aRecordOutOfOrderInsideAPartIsNamedByFileAndPosition() throws Exception {
    List<byte[]> records = sortedByKey(input);
    java.util.Collections.swap(records, 33, 34);
    writeParts(records, 30, 30);

    assertEquals("sortvalidate: the output is not a sort of the input: part-r-00001: record 4"
        + " has a smaller key than the record before it", failure());
  }

  @Test
  void partsWhoseRangesOverlapAreNamedWithTheKeys() throws Exception {
    List<byte[]> records = sortedByKey(input);
    List<byte[]> swapped = new ArrayList<>(records.subList(30, 60));
    swapped.addAll(records.subList(0, 30));
    writeParts(swapped, 30, 30);
    java.util.HexFormat hex = java.util.HexFormat.of();

    assertEquals("sortvalidate: the output is not a sort of the input: part-r-00001 starts with"
        + " key " + hex.formatHex(records.get(0), 0, KEY) + ", below the last key "
        + hex.formatHex(records.get(59), 0, KEY) + " of part-r-00000", failure());
  }

  @Test
  void aLostRecordIsReportedAsACountMismatch() throws Exception {
    List<byte[]> records = sortedByKey(input);
    records.remove(17);
    writeParts(records, 59);

    assertEquals("sortvalidate: the output is not a sort of the input: the sorted output has 59"
        + " records, the input 60", failure());
  }

  @Test
  void aChangedValueIsCaughtByTheChecksumThoughCountAndOrderHold() throws Exception {
    List<byte[]> records = sortedByKey(input);
    records.set(5, records.get(5).clone());
    records.get(5)[RECORD - 1] ^= 1;
    writeParts(records, 60);

    String message = failure();
    assertTrue(message.contains("the sorted output's checksum " + Long.toHexString(
        checksum(records)) + " differs from the input's " + Long.toHexString(checksum(input))
        + ": records were changed, lost or repeated"), message);
  }

  @Test
  void manyProblemsAreCappedAtFiveWithACountOfTheRest() throws Exception {
    List<byte[]> records = new ArrayList<>(sortedByKey(input));
    java.util.Collections.reverse(records);
    writeParts(records, 10, 10, 10, 10, 10, 10);

    String message = failure();
    assertTrue(message.endsWith(" (and 6 more)"), message);
    assertEquals(5, message.split("; ").length, message);
  }

  @Test
  void wrongArgumentsAreRejectedWithTheUsage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SortValidateJob().checkArguments(new JobContext(conf, List.of("a", "b"))));
    assertEquals("usage: sortvalidate <input path> <sorted path> <report path>", e.getMessage());
  }
}
