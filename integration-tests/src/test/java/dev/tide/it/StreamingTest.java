package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream on a MiniYARNCluster (3 NodeManagers with the real tide_shuffle service):
 * {@code stream-rate} through a 4x step of its input rate with streaming dynamic allocation and
 * an executor killed mid-batch. It runs after the other test classes, beside only the secure
 * stream (integration-tests' pom: keeping up with the rate needs the machine's cores, and the
 * secure stream mostly waits). {@link StreamWordCountTest} has the other streaming job.
 */
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class StreamingTest {
  private static final String EVENTS = "/tide-events-streaming";
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
  void executorsFollowA4xStepOfTheRateAndEveryRecordIsCountedOnce() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.streaming.batchInterval", "3s"); // a batch's fixed cost here is ~1 s
    conf.set("tide.streaming.rate.schedule", "100@0s,400@24s,100@66s");
    conf.set("tide.streaming.rate.cost", "3ms");
    conf.set("tide.streaming.rate.spin", "false"); // 2 cores: sleep each record's cost
    conf.set("tide.streaming.rate.splits", "8");
    conf.set("tide.streaming.stopAfter", "110s");
    conf.set("tide.streaming.dynamicAllocation.enabled", "true");
    conf.set("tide.streaming.dynamicAllocation.maxExecutors", "6");
    conf.set("tide.dynamicAllocation.enabled", "false");
    String out = "/stream-rate/out";
    CompletableFuture<JobRun> job = CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(conf, System.out, "stream-rate", out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FileSystem fs = cluster.fileSystem();
    try (YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.clientConf());
      yarn.start();
      // The policy may remove the chosen executor just before the signal: choose again.
      boolean killed = false;
      for (int attempt = 0; attempt < 5 && !killed; attempt++) {
        String victim = containerOnceBusy(fs, job, 40_000);
        try {
          yarn.signalToContainer(ContainerId.fromString(victim),
              SignalContainerCommand.FORCEFUL_SHUTDOWN);
          killed = true;
        } catch (org.apache.hadoop.yarn.exceptions.YarnException e) {
          System.out.println("Could not kill " + victim + " (" + e.getMessage() + "); again");
        }
      }
      assertTrue(killed, "an executor was killed mid-stream");
    }
    JobRun run = job.get(300, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("batches done, last"), "the progress line shows batches");

    List<EventLine> events = run.events(fs, EVENTS);
    List<EventLine> batches = JobRun.named(events, EventName.BATCH_COMPLETED);
    long start = batches.get(0).getLong("batch") - 3000;
    System.out.print(EmbeddedDemo.batchTimeline(events));
    long total = 0;
    for (EventLine b : batches) {
      total += b.getLong("records");
    }
    assertEquals(total, coveredIds(fs, out), "every id of every batch written exactly once");

    List<EventLine> high = between(batches, start + 27_000, start + 66_000);
    List<EventLine> lowAfter = between(batches, start + 66_000, Long.MAX_VALUE);
    long firstExecutors = batches.get(0).getLong("executors");
    long peak = high.stream().mapToLong(b -> b.getLong("executors")).max().orElse(0);
    assertTrue(peak >= 2 && peak > firstExecutors, "executors rose with the rate: "
        + firstExecutors + " -> " + peak);
    List<EventLine> settled = high.subList(high.size() - 3, high.size());
    assertTrue(settled.stream().noneMatch(b -> b.get("delayed").equals("true")),
        "batches stopped being delayed before the rate fell: " + settled);
    // two steps of the rate (and one executor killed) need at most 4 turns of the target, plus
    // one swing (2 turns) where a scale-down by up to half first tries a count too small for
    // the high rate and the next batch takes one back (seen on a quiet machine: 1, 2, 1, 3, 4,
    // 2, 3, 2, 1); a target swinging back and forth at a constant rate makes 2 turns per swing
    List<Long> targets = batches.stream().map(b -> b.getLong("target")).toList();
    assertTrue(reversals(targets) <= 6, "the target turned at most 6 times: " + targets);
    long last = lowAfter.get(lowAfter.size() - 1).getLong("target");
    assertTrue(last < peak, "executors fell after the rate did: target " + last + " after a"
        + " peak of " + peak + " executors");
    assertFalse(JobRun.named(events, EventName.STREAMING_ALLOCATION).stream()
        .noneMatch(e -> e.getLong("remove") > 0), "the policy removed executors");
    JobRun timeline = Submitter.run(conf, System.out, "timeline", run.appId());
    assertEquals(0, timeline.exitCode(), timeline.output());
    assertTrue(timeline.output().contains("job succeeded: stream StreamRateJob stopped after")
        && timeline.output().contains("target 1 ->") && timeline.output().contains("batch "),
        timeline.output());
    assertTrue(JobRun.named(events, EventName.EXECUTOR_REMOVED).stream()
        .anyMatch(e -> e.get("reason").contains("failed") || e.get("reason").contains("closed")),
        "the killed executor was seen lost");
  }

  /** How often a sequence changes direction (up then down, or down then up). */
  private static int reversals(List<Long> values) {
    int turns = 0;
    long lastStep = 0;
    for (int i = 1; i < values.size(); i++) {
      long step = Long.signum(values.get(i) - values.get(i - 1));
      if (step != 0) {
        turns += lastStep != 0 && step != lastStep ? 1 : 0;
        lastStep = step;
      }
    }
    return turns;
  }






  /**
   * The container of a live executor of the running stream-rate job (two or more live), after
   * stream time t.
   */
  private static String containerOnceBusy(FileSystem fs, CompletableFuture<JobRun> run,
      long streamMillis) throws Exception {
    return Await.value(Duration.ofSeconds(180), "stream-rate to run " + streamMillis
        + " ms with 2 executors", () -> {
      for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
        List<EventLine> batches = JobRun.named(events, EventName.BATCH_COMPLETED);
        List<EventLine> launched = JobRun.named(events, EventName.EXECUTOR_LAUNCHED);
        java.util.Set<String> gone = new java.util.HashSet<>();
        for (EventName event : List.of(EventName.EXECUTOR_REMOVED, EventName.EXECUTOR_IDLE_REMOVAL)) {
          JobRun.named(events, event).forEach(e -> gone.add(e.get("executor")));
        }
        List<EventLine> alive = launched.stream().filter(e -> !gone.contains(e.get("executor")))
            .toList();
        if (!batches.isEmpty() && alive.size() >= 2
            && batches.get(batches.size() - 1).getLong("batch") - batches.get(0).getLong("batch")
                + 3000 >= streamMillis) {
          return alive.get(alive.size() - 1).get("container");
        }
      }
      if (run.isDone()) {
        throw new AssertionError("stream-rate never ran " + streamMillis
            + " ms with 2 executors: " + run.get().output());
      }
      return null;
    });
  }

  /** Ids covered by the ranges of every batch's output; fails on a gap or an overlap. */
  private static long coveredIds(FileSystem fs, String out) throws Exception {
    TreeMap<Long, Long> ranges = new TreeMap<>();
    for (FileStatus batch : fs.globStatus(new Path(out, "batch-*"))) {
      for (String line : JobRun.outputLines(fs, batch.getPath().toString())) {
        String[] f = line.split("\t");
        Long twice = ranges.put(Long.parseLong(f[0]), Long.parseLong(f[1]));
        assertEquals(null, twice, "id " + f[0] + " in two batches");
      }
    }
    long next = 0;
    for (Map.Entry<Long, Long> r : ranges.entrySet()) {
      assertEquals(next, (long) r.getKey(), "ids from " + next + " missing or doubled");
      next = r.getValue();
    }
    return next;
  }

  private static List<EventLine> between(List<EventLine> batches, long from, long to) {
    List<EventLine> in = new ArrayList<>();
    for (EventLine b : batches) {
      long t = b.getLong("batch");
      if (t > from && t <= to) {
        in.add(b);
      }
    }
    return in;
  }
}
