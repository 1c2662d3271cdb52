package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.StreamSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two built-in streaming jobs, their batches run one after another in this JVM. */
class StreamJobsTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();

  private static String text(Map<String, byte[]> parts) {
    StringBuilder all = new StringBuilder();
    parts.values().forEach(p -> all.append(new String(p, StandardCharsets.UTF_8)));
    return all.toString();
  }

  /** The rate job's promise: the ranges of all batches cover 0, 1, 2 ... exactly once. */
  @Test
  void theRateJobsBatchesCoverEveryIdOnceInMergedRanges() throws Exception {
    conf.set("tide.streaming.rate.schedule", "100@0s,250@3s");
    conf.set("tide.streaming.batchInterval", "1s");
    conf.set("tide.streaming.rate.cost", "0ms");
    conf.setInt("tide.streaming.rate.splits", 3);
    StreamRateJob job = new StreamRateJob();
    LocalPlanRunner runner = new LocalPlanRunner(conf, List.of("out"));
    StreamSource source = job.source(runner.context());
    source.restore(List.of());

    long next = 0;
    for (long t = 1_000; t <= 5_000; t += 1_000) {
      StreamSource.Batch batch = source.take(t);
      String lines = text(runner.run(job.batchPlan(runner.context(), batch, "out/batch-" + t)));
      // Three contiguous ranges of one batch merge into one line.
      assertEquals(next + "\t" + (next + batch.records()) + "\n", lines, "batch at " + t);
      next += batch.records();
    }
    assertEquals(100 * 3 + 250 * 2, next);
    assertEquals("out", job.outputPath(runner.context()));
  }

  @Test
  void theRangeReducerWritesOneLinePerRunOfAdjacentIds() throws Exception {
    List<KeyValue> ranges = List.of(range(0, 10), range(10, 5), range(20, 1), range(21, 4),
        range(40, 2));
    ByteArrayOutputStream file = new ByteArrayOutputStream();

    new StreamRateJob.RangeReducer().reduce(0, ranges.iterator(), LocalPlanRunner.into(file));

    assertEquals("0\t15\n20\t25\n40\t42\n", file.toString(StandardCharsets.UTF_8));
    ByteArrayOutputStream empty = new ByteArrayOutputStream();
    new StreamRateJob.RangeReducer().reduce(0, List.<KeyValue>of().iterator(),
        LocalPlanRunner.into(empty));
    assertEquals(0, empty.size());
  }

  private static KeyValue range(long first, long count) {
    return new KeyValue(ByteBuffer.allocate(8).putLong(first).array(),
        ByteBuffer.allocate(8).putLong(count).array());
  }

  @Test
  void theWordCountStreamCountsEachFileInTheBatchThatTookIt() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    conf.setInt("tide.wordcount.reducers", 2);
    StreamWordCountJob job = new StreamWordCountJob();
    LocalPlanRunner runner = new LocalPlanRunner(conf, List.of(in.toString(), "out"));
    job.checkSource(runner.context());
    StreamSource source = job.source(runner.context());
    source.restore(List.of());

    Files.writeString(in.resolve("1.txt"), "a b a\n");
    Files.writeString(in.resolve(".2.txt.tmp"), "partly written\n");
    List<String> batches = new ArrayList<>();
    batches.add(countsOf(job, runner, source.take(1_000)));
    Files.move(in.resolve(".2.txt.tmp"), in.resolve("2.txt"));
    Files.writeString(in.resolve("3.txt"), "b c\n");
    batches.add(countsOf(job, runner, source.take(2_000)));
    StreamSource.Batch idle = source.take(3_000);

    assertEquals(List.of("{a=2, b=1}", "{b=1, c=1, partly=1, written=1}"), batches);
    assertEquals(List.of(), idle.splits());
    assertEquals(0, idle.records());
  }

  private String countsOf(StreamWordCountJob job, LocalPlanRunner runner,
      StreamSource.Batch batch) throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    for (String line : text(runner.run(job.batchPlan(runner.context(), batch, "b")))
        .split("\n")) {
      String[] f = line.split("\t");
      counts.put(f[0], Long.parseLong(f[1]));
    }
    return counts.toString();
  }

  @Test
  void theWordCountStreamNeedsAnExistingInputDirectory() throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    StreamWordCountJob job = new StreamWordCountJob();

    IOException missing = assertThrows(IOException.class, () -> job.checkSource(
        new JobContext(conf, List.of(dir.resolve("nope").toString(), "out"))));
    assertTrue(missing.getMessage().startsWith("input directory file:")
        && missing.getMessage().endsWith("nope does not exist"), missing.getMessage());
    IOException notDir = assertThrows(IOException.class, () -> job.checkSource(
        new JobContext(conf, List.of(file.toString(), "out"))));
    assertTrue(notDir.getMessage().endsWith("file is not a directory"), notDir.getMessage());
    IllegalArgumentException usage = assertThrows(IllegalArgumentException.class,
        () -> job.outputPath(new JobContext(conf, List.of("in"))));
    assertEquals("usage: stream-wordcount <input dir> <output path>; got 1 arguments [in]",
        usage.getMessage());
  }
}
