package dev.tide.driver.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession.JobFailedException;
import dev.tide.driver.jobs.StreamRateJob;
import dev.tide.time.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream runner with the rate source on the local FileSystem and a driver that "runs" a
 * batch's plan by writing its id ranges: batches at interval multiples, each logged, committed
 * by rename, and a job resubmitted after a batch failed reruns that batch with the same ids and
 * continues: every id exactly once.
 */
class StreamRunnerTest {
  @TempDir
  java.nio.file.Path dir;

  /**
   * A manual clock that moves 50 ms each time it is read; the runner's pauses move it too, so
   * the test never sleeps.
   */
  private static final class FakeDriver implements StreamDriver {
    final JobContext context;
    final List<CompletedBatch> completed = new ArrayList<>();
    final ManualClock clock;
    int failBatch = -1;
    int stopAfterBatches = Integer.MAX_VALUE;
    int plans;

    FakeDriver(Configuration conf, String output) {
      this(conf, output, 1_000_000);
    }

    FakeDriver(Configuration conf, String output, long startMillis) {
      this.context = new JobContext(conf, List.of(output));
      this.clock = new ManualClock(startMillis);
    }

    @Override
    public JobContext context() {
      return context;
    }

    @Override
    public long now() {
      return clock.advanceMillis(50);
    }

    @Override
    public void pause(Duration duration) {
      clock.pause(duration);
    }

    @Override
    public void batchSubmitted(long batchTime, long records, int waiting, long waitingRecords) {}

    @Override
    public void batchStarted(long batchTime, long schedulingDelayMillis) {}

    @Override
    public PlanMeasure runPlan(JobPlan plan) throws JobFailedException {
      if (plans++ == failBatch) {
        throw new JobFailedException("task failed 4 times");
      }
      Path out = new Path(plan.outputPath());
      try {
        FileSystem fs = out.getFileSystem(context.conf());
        try (OutputStream o = fs.create(new Path(out, "part-r-00000"))) {
          for (InputSplit split : plan.stage(0).splits()) {
            RateSource.IdRange r = RateSource.IdRange.decode(split.payload());
            o.write((r.first() + "\t" + (r.first() + r.count()) + "\n")
                .getBytes(StandardCharsets.UTF_8));
          }
        }
      } catch (IOException e) {
        throw new JobFailedException(e.toString());
      }
      return new PlanMeasure(plan.stage(0).splits().size(), 2, false);
    }

    @Override
    public void batchCompleted(CompletedBatch batch) {
      completed.add(batch);
    }

    @Override
    public boolean stopRequested() {
      return completed.size() >= stopAfterBatches;
    }
  }

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    conf.set("tide.streaming.batchInterval", "1s");
    conf.set("tide.streaming.rate.schedule", "1000@0s,4000@3s");
    conf.set("tide.streaming.rate.splits", "3");
    return conf;
  }

  @Test
  void aRerunBatchTakesTheSameIdsAndTheStreamContinuesWithEveryIdOnce() throws Exception {
    String output = dir.resolve("out").toString();
    FakeDriver first = new FakeDriver(conf(), output);
    first.failBatch = 3;
    JobFailedException failed = assertThrows(JobFailedException.class,
        () -> new StreamRunner(new StreamRateJob(), first).run());
    assertTrue(failed.getMessage().matches("batch \\d+ failed: task failed 4 times"),
        failed.getMessage());
    assertEquals(3, first.completed.size());
    for (CompletedBatch b : first.completed) {
      assertEquals(0, b.batchTimeMillis() % 1000, "batch times are interval multiples");
    }

    FakeDriver second = new FakeDriver(conf(), output, first.clock.millis() + 5_000); // 5 s later
    second.stopAfterBatches = 4;
    String summary = new StreamRunner(new StreamRateJob(), second).run();
    assertTrue(summary.contains("after 4 batches"), summary);
    long failedTime = Long.parseLong(failed.getMessage().split(" ")[1]);
    assertEquals(failedTime, second.completed.get(0).batchTimeMillis(),
        "the batch that failed ran again first, at its own time");

    FileSystem fs = FileSystem.getLocal(conf());
    TreeMap<Long, Long> ranges = new TreeMap<>();
    int batchDirs = 0;
    for (FileStatus batch : fs.listStatus(new Path(output))) {
      String name = batch.getPath().getName();
      assertTrue(name.startsWith("batch-") || name.equals("_checkpoint"), name);
      if (name.startsWith("batch-")) {
        batchDirs++;
        for (String line : Files.readAllLines(java.nio.file.Path.of(
            batch.getPath().toUri().getPath(), "part-r-00000"))) {
          String[] fields = line.split("\t");
          Long previous = ranges.put(Long.parseLong(fields[0]), Long.parseLong(fields[1]));
          assertEquals(null, previous, "id " + fields[0] + " taken twice");
        }
      }
    }
    assertEquals(7, batchDirs);
    long next = 0;
    for (var r : ranges.entrySet()) {
      assertEquals(next, r.getKey(), "ids are contiguous: no gap, no overlap");
      next = r.getValue();
    }
    long total = 0;
    for (CompletedBatch b : first.completed) {
      total += b.records();
    }
    for (CompletedBatch b : second.completed) {
      total += b.records();
    }
    assertEquals(next, total, "the batches' record counts add up to the ids written");
    assertTrue(second.completed.get(1).records() > 4000, "the first batch after the 5 s pause"
        + " took the records that arrived meanwhile: " + second.completed.get(1));
  }

  @Test
  void aDamagedCheckpointFileIsRefusedWithItsPath() throws Exception {
    String output = dir.resolve("out2").toString();
    FakeDriver driver = new FakeDriver(conf(), output);
    driver.stopAfterBatches = 1;
    new StreamRunner(new StreamRateJob(), driver).run();
    java.nio.file.Path checkpoint = dir.resolve("out2").resolve("_checkpoint");
    java.nio.file.Path logged;
    try (var files = Files.list(checkpoint)) {
      logged = files.filter(p -> p.getFileName().toString().startsWith("batch-")).findFirst()
          .orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(logged);
    bytes[12] ^= 1;
    Files.write(logged, bytes);
    IOException e = assertThrows(IOException.class,
        () -> new StreamRunner(new StreamRateJob(), new FakeDriver(conf(), output)).run());
    assertTrue(e.getMessage().contains(logged.getFileName().toString())
        && e.getMessage().contains("damaged"), e.getMessage());
  }
}
