package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.RangePartitioner;
import dev.tide.input.FileRangeSplits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sort job's output: the input's records, in total order of their keys across parts. */
class SortJobTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();

  /** Writes {@code files} files of records into an input dir; returns all records written. */
  private List<byte[]> writeInput(int files, int perFile, int recordBytes, int keyBytes,
      int keyValues) throws IOException {
    Path in = Files.createDirectories(dir.resolve("in"));
    List<byte[]> all = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      List<byte[]> records = FixedRecordFiles.records(f, perFile, recordBytes, keyBytes,
          keyValues);
      FixedRecordFiles.write(in.resolve("part-" + f), records);
      all.addAll(records);
    }
    return all;
  }

  private LocalPlanRunner runner() {
    return new LocalPlanRunner(conf, List.of(dir.resolve("in").toString(),
        dir.resolve("out").toString()));
  }

  /** Asserts the parts, in name order, hold exactly {@code input} with keys never going down. */
  private static void assertSortedPermutation(List<byte[]> input, Map<String, byte[]> parts,
      int recordBytes, int keyBytes) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    parts.values().forEach(all::writeBytes);
    List<byte[]> output = FixedRecordFiles.split(all.toByteArray(), recordBytes);
    assertEquals(FixedRecordFiles.asSortedHex(input), FixedRecordFiles.asSortedHex(output));
    for (int i = 1; i < output.size(); i++) {
      assertTrue(Arrays.compareUnsigned(output.get(i - 1), 0, keyBytes, output.get(i), 0,
          keyBytes) <= 0, "record " + i + " of the output has a smaller key than the one before");
    }
  }

  @ParameterizedTest(name = "{0} reducers, {1} distinct first key bytes (0: random keys)")
  @CsvSource({"1, 0", "4, 0", "3, 2", "5, 1"})
  void thePartsTogetherHoldEveryRecordInKeyOrder(int reducers, int keyValues) throws Exception {
    List<byte[]> input = writeInput(3, 70, 100, 10, keyValues);
    conf.setInt("tide.sort.reducers", reducers);
    LocalPlanRunner runner = runner();

    JobPlan plan = new SortJob().plan(runner.context());
    Map<String, byte[]> parts = runner.run(plan);

    assertEquals(3, plan.stage(0).tasks(), "one map per input file");
    assertEquals(reducers, parts.size());
    assertSortedPermutation(input, parts, 100, 10);
  }

  @Test
  void whenEveryKeyIsSampledEachReducerGetsAnEqualShare() throws Exception {
    writeInput(2, 200, 100, 10, 0);
    conf.setInt("tide.sort.reducers", 4);
    LocalPlanRunner runner = runner();

    Map<String, byte[]> parts = runner.run(new SortJob().plan(runner.context()));

    for (Map.Entry<String, byte[]> part : parts.entrySet()) {
      int records = part.getValue().length / 100;
      assertEquals(100, records, part.getKey() + " of 4 parts of 400 records");
    }
  }

  @Test
  void withNoReducersSetEachInputSplitGetsOne() throws Exception {
    List<byte[]> input = writeInput(4, 10, 100, 10, 0);
    LocalPlanRunner runner = runner();

    JobPlan plan = new SortJob().plan(runner.context());

    assertEquals(4, plan.last().tasks());
    assertSortedPermutation(input, runner.run(plan), 100, 10);
  }

  @Test
  void recordAndKeyLengthsComeFromTheSettings() throws Exception {
    conf.setInt("tide.sort.recordBytes", 8);
    conf.setInt("tide.sort.keyBytes", 3);
    conf.setInt("tide.sort.reducers", 2);
    List<byte[]> input = writeInput(2, 50, 8, 3, 0);
    LocalPlanRunner runner = runner();

    assertSortedPermutation(input, runner.run(new SortJob().plan(runner.context())), 8, 3);
  }

  @Test
  void theSplitPointsAreEvenQuantilesOfTheSampledKeysInUnsignedOrder() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    List<byte[]> records = new ArrayList<>();
    for (int k = 0; k < 8; k++) {
      records.add(new byte[] {(byte) (k * 32), 0}); // 0x00, 0x20 ... 0xe0: negative as signed
    }
    FixedRecordFiles.write(in.resolve("keys"), records);
    conf.setInt("tide.sort.recordBytes", 2);
    conf.setInt("tide.sort.keyBytes", 1);

    List<byte[]> points = SortJob.splitPoints(conf, FileRangeSplits.plan(conf, in.toString(), 0),
        4, 2, 1);

    assertEquals(List.of("40", "80", "c0"), points.stream()
        .map(p -> java.util.HexFormat.of().formatHex(p)).toList());
    assertEquals(RangePartitioner.class.getName(), new SortJob().plan(new JobContext(conf,
        List.of(in.toString(), dir.resolve("out").toString()))).last().partitioning()
        .partitionerClass());
  }

  @Test
  void aKeyLongerThanTheRecordIsRejectedNamingBothSettings() throws Exception {
    writeInput(1, 1, 100, 10, 0);
    conf.setInt("tide.sort.keyBytes", 120);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SortJob().plan(runner().context()));
    assertEquals("tide.sort.keyBytes (120) is more than tide.sort.recordBytes (100)",
        e.getMessage());
  }

  @Test
  void anInputThatIsNotWholeRecordsFailsNamingTheFileAndTheRecordLength() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    Files.write(in.resolve("torn"), new byte[250]);
    IOException e = assertThrows(IOException.class,
        () -> new SortJob().plan(runner().context()));
    assertTrue(e.getMessage().contains("torn is 250 bytes long, not a whole number of 100-byte"
        + " records (tide.sort.recordBytes)"), e.getMessage());
  }

  @Test
  void wrongArgumentsAreRejectedWithTheUsage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SortJob().checkArguments(new JobContext(conf, List.of("a", "b", "c"))));
    assertEquals("usage: sort <input path> <output path>", e.getMessage());
  }
}
