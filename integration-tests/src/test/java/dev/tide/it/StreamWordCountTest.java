package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.testing.Await;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code stream-wordcount} on a MiniYARNCluster (3 NodeManagers with the real tide_shuffle
 * service) over files renamed into a directory, stopped gracefully and resubmitted. (Moved out
 * of {@link StreamingTest}, which runs after the others; this one runs beside them.)
 */
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class StreamWordCountTest {
  private static final String EVENTS = "/tide-events-stream-wc";
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
  }

  private static Configuration jobConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.streaming.batchInterval", "2s");
    return conf;
  }

  @Test
  void streamWordCountCountsEachFileOnceAcrossAGracefulStopAndAResubmission()
      throws Exception {
    FileSystem fs = cluster.fileSystem();
    Path in = new Path("/stream-wc/in");
    fs.mkdirs(in);
    SplittableRandom random = new SplittableRandom(3);
    int file = 0;
    for (; file < 2; file++) {
      arrive(fs, in, file, random);
    }
    String out = "/stream-wc/out";
    CompletableFuture<JobRun> first = CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(jobConf(), System.out, "stream-wordcount", in.toString(), out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    String appId = awaitBatches(fs, first, "stream-wordcount", 1);
    for (; file < 5; file++) {
      arrive(fs, in, file, random); // while it runs
    }
    awaitInputBytes(fs, first, appId, totalBytes(fs, in));
    JobRun stop = Submitter.run(jobConf(), System.out, "stop", appId);
    assertEquals(0, stop.exitCode(), stop.output());
    JobRun firstRun = first.get(120, TimeUnit.SECONDS);
    assertEquals(0, firstRun.exitCode(), firstRun.output());
    assertTrue(firstRun.output().contains("stopped after"), firstRun.output());

    for (; file < 8; file++) {
      arrive(fs, in, file, random); // while no stream runs
    }
    Configuration again = jobConf();
    again.set("tide.streaming.stopAfter", "14s");
    JobRun second = Submitter.run(again, System.out, "stream-wordcount", in.toString(), out);
    assertEquals(0, second.exitCode(), second.output());

    Map<String, Long> streamed = new TreeMap<>();
    for (FileStatus batch : fs.globStatus(new Path(out, "batch-*"))) {
      WordCountOutput.read(fs, batch.getPath().toString())
          .forEach((w, n) -> streamed.merge(w, n, Long::sum));
    }
    assertTrue(fs.globStatus(new Path(out, "_batch-*")).length == 0, "no batch left half-done");
    JobRun batchRun = Submitter.run(jobConf(), System.out, "wordcount", in.toString(),
        "/stream-wc/batch");
    assertEquals(0, batchRun.exitCode(), batchRun.output());
    assertEquals(WordCountOutput.read(fs, "/stream-wc/batch"), streamed,
        "the batches of both runs together counted every file exactly once");
    long firstBytes = inputBytes(firstRun.events(fs, EVENTS));
    long secondBytes = inputBytes(second.events(fs, EVENTS));
    assertEquals(totalBytes(fs, in), firstBytes + secondBytes, "the resubmitted job took only"
        + " the files that arrived after the first one stopped");
  }

  /** A text file written outside the directory, then renamed in. */
  private static void arrive(FileSystem fs, Path dir, int n, SplittableRandom random)
      throws Exception {
    String[] words = {"tide", "yarn", "stream", "batch", "executor", "shuffle", "ocean"};
    StringBuilder text = new StringBuilder();
    for (int line = 0; line < 2000; line++) {
      for (int w = 0; w < 8; w++) {
        text.append(words[random.nextInt(words.length)]).append(random.nextInt(50)).append(' ');
      }
      text.append('\n');
    }
    Path temp = new Path("/stream-wc/incoming/file-" + n);
    try (OutputStream o = fs.create(temp)) {
      o.write(text.toString().getBytes(StandardCharsets.UTF_8));
    }
    assertTrue(fs.rename(temp, new Path(dir, "file-" + n)));
  }

  private static long totalBytes(FileSystem fs, Path dir) throws Exception {
    long n = 0;
    for (FileStatus f : fs.listStatus(dir)) {
      n += f.getLen();
    }
    return n;
  }

  private static long inputBytes(List<EventLine> events) {
    return JobRun.named(events, EventName.BATCH_COMPLETED).stream().mapToLong(e -> e.getLong("records"))
        .sum();
  }

  /** The application id once the running {@code job} completed {@code batches} batches. */
  private static String awaitBatches(FileSystem fs, CompletableFuture<JobRun> run, String job,
      int batches) throws Exception {
    return Await.value(Duration.ofSeconds(120), "a " + job + " batch completed", () -> {
      for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
        if (JobRun.named(events, EventName.JOB_START).get(0).get("job").equals(job)
            && JobRun.named(events, EventName.BATCH_COMPLETED).size() >= batches) {
          return JobRun.appId(events);
        }
      }
      if (run.isDone()) {
        throw new AssertionError("no " + job + " batch completed: " + run.get().output());
      }
      return null;
    });
  }

  /** Waits until the running application's batches took {@code bytes} of input. */
  private static void awaitInputBytes(FileSystem fs, CompletableFuture<JobRun> run, String app,
      long bytes) throws Exception {
    Await.until(Duration.ofSeconds(120), "the stream to take " + bytes + " bytes of input", () -> {
      for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
        if (JobRun.appId(events).equals(app) && inputBytes(events) >= bytes) {
          return true;
        }
      }
      if (run.isDone()) {
        throw new AssertionError("the stream ended before it took " + bytes + " bytes of input");
      }
      return false;
    });
  }
}
