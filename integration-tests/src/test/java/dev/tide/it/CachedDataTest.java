package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cached datasets and jobs of several plans on a MiniYARNCluster (3 NodeManagers with the real
 * tide_shuffle service): the built-in {@code kmeans} against an independent computation, also
 * with an executor that holds cached blocks killed mid-job, and how long the allocation policy
 * keeps executors that hold cached blocks ({@link CachedPauseJob}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CachedDataTest {
  private static final String EVENTS = "/tide-events-cache";
  private static final int K = 3;
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
    FileSystem fs = cluster.fileSystem();
    SplittableRandom random = new SplittableRandom(11);
    double[][] truth = {{0, 0}, {10, 10}, {-8, 12}};
    for (int f = 0; f < 4; f++) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 8000; i++) {
        double[] c = truth[random.nextInt(truth.length)];
        text.append(c[0] + random.nextGaussian() * 2).append(',')
            .append(c[1] + random.nextGaussian() * 2).append('\n');
      }
      try (var out = fs.create(new Path("/kmeans/in/points-" + f))) {
        out.write(text.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private static Configuration jobConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.maxExecutors", "3");
    return conf;
  }

  @Test
  void kmeansGivesTheCentresOfLloydsAlgorithmAndReadsLaterRoundsFromTheCache() throws Exception {
    JobRun run = Submitter.run(jobConf(), System.out, "kmeans", "/kmeans/in", "3", "5",
        "/kmeans/out");
    assertEquals(0, run.exitCode(), run.output());
    assertCentres(lloyd(readPoints(), 5), "/kmeans/out");
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    assertEquals(5, JobRun.named(events, EventName.PLAN_START).size());
    List<EventLine> assigns = mapEnds(events);
    assertEquals(5 * 4, assigns.size(), "4 blocks per round");
    assertEquals(4, assigns.stream().filter(e -> e.get("cacheHit").equals("0")).count(),
        "only round 1 read the points from HDFS; rounds 2-5 read every block from memory");
    assertTrue(assigns.stream().allMatch(e -> e.get("cachedBlock").equals("1")));
  }

  @Test
  void killingAnExecutorThatHoldsCachedBlocksStillGivesTheRightCentres() throws Exception {
    CompletableFuture<JobRun> job = CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(jobConf(), System.out, "kmeans", "/kmeans/in", "3", "12",
            "/kmeans/killed");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FileSystem fs = cluster.fileSystem();
    String what = "round 3 started with executors holding cached blocks";
    String victim = Await.value(Duration.ofSeconds(120), what, () -> {
      String holder = holderContainer(fs, "kmeans", 3);
      assertTrue(holder != null || !job.isDone(), what);
      return holder;
    });
    try (YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.clientConf());
      yarn.start();
      yarn.signalToContainer(ContainerId.fromString(victim),
          SignalContainerCommand.FORCEFUL_SHUTDOWN);
    }
    JobRun run = job.get(240, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertCentres(lloyd(readPoints(), 12), "/kmeans/killed");
    List<EventLine> events = run.events(fs, EVENTS);
    assertFalse(JobRun.named(events, EventName.CACHED_BLOCKS_LOST).isEmpty(), "the killed executor's"
        + " blocks were known lost");
    assertTrue(mapEnds(events).stream().skip(8).anyMatch(e -> e.get("cacheHit").equals("0")),
        "a lost block was read again from its split after round 2");
  }

  @Test
  void executorsHoldingCachedBlocksOutliveTheIdleTimeoutAndGoAfterTheCachedOne()
      throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "1s");
    // 10 s: the holders' idle time through the 5 s pause includes the end of plan 1 and the
    // start of plan 2, which took over 3 s at load 22 (8 s was too close).
    conf.set("tide.dynamicAllocation.cachedExecutorIdleTimeout", "10s");
    JobRun run = Submitter.run(conf, System.out, CachedPauseJob.class.getName(), "4", "5000",
        "16000", "/cached/sum");
    assertEquals(0, run.exitCode(), run.output());
    FileSystem fs = cluster.fileSystem();
    for (int p = 1; p <= 3; p++) {
      assertEquals(List.of(String.valueOf(CachedPauseJob.expectedSum(4))),
          lines(fs, "/cached/sum-" + p), "plan " + p);
    }
    List<EventLine> events = run.events(fs, EVENTS);
    List<EventLine> maps = mapEnds(events);
    assertEquals(12, maps.size());
    assertTrue(maps.subList(4, 8).stream().allMatch(e -> e.get("cacheHit").equals("1")),
        "after a 5 s pause (idle timeout 1 s) the executors holding the blocks were still there"
        + " and plan 2 read every block from memory: " + maps.subList(4, 8));
    assertTrue(maps.subList(8, 12).stream().allMatch(e -> e.get("cacheHit").equals("0")),
        "after a 16 s pause (cached idle timeout 10 s) they were gone: plan 3 read the splits");
    Map<String, Long> lastTaskEnd = new HashMap<>();
    for (EventLine e : JobRun.named(events, EventName.TASK_END)) {
      lastTaskEnd.put(e.get("executor"), e.timeMillis());
    }
    Set<String> holders = new HashSet<>();
    maps.subList(0, 8).forEach(e -> holders.add(e.get("executor")));
    long planTwoEnd = JobRun.named(events, EventName.PLAN_END).get(1).timeMillis();
    for (EventLine removal : JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL)) {
      String id = removal.get("executor");
      if (holders.contains(id) && removal.timeMillis() > planTwoEnd) {
        long idle = removal.timeMillis() - lastTaskEnd.get(id);
        assertTrue(idle >= 10000 && idle < 16000, "holder " + id + " removed after " + idle
            + " ms idle");
      }
    }
    assertTrue(JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL).stream()
        .anyMatch(e -> holders.contains(e.get("executor")) && e.timeMillis() > planTwoEnd),
        "holders were removed in the second pause");
  }

  private static List<EventLine> mapEnds(List<EventLine> events) {
    return JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("kind").equals("MAP")
        && e.get("result").equals("SUCCEEDED")).toList();
  }

  /**
   * The container of an executor that holds a cached block, once the running application of
   * this job has started plan {@code plans}; else null.
   */
  private static String holderContainer(FileSystem fs, String job, int plans) throws Exception {
    for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
      if (JobRun.named(events, EventName.JOB_START).stream().noneMatch(e -> e.get("job").equals(job))
          || JobRun.named(events, EventName.PLAN_START).size() < plans) {
        continue;
      }
      Set<String> holders = new HashSet<>();
      mapEnds(events).stream().filter(e -> "1".equals(e.get("cachedBlock")))
          .forEach(e -> holders.add(e.get("executor")));
      for (EventLine launched : JobRun.named(events, EventName.EXECUTOR_LAUNCHED)) {
        if (holders.contains(launched.get("executor"))) {
          return launched.get("container");
        }
      }
    }
    return null;
  }

  private static List<double[]> readPoints() throws Exception {
    List<double[]> points = new ArrayList<>();
    FileSystem fs = cluster.fileSystem();
    for (int f = 0; f < 4; f++) {
      for (String line : lines(fs, "/kmeans/in/points-" + f)) {
        String[] xy = line.split(",");
        points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
      }
    }
    return points;
  }

  /** Lloyd's algorithm from the first K distinct points, computed here without Tide. */
  private static double[][] lloyd(List<double[]> points, int rounds) {
    double[][] centres = new double[K][];
    int found = 0;
    for (double[] p : points) {
      boolean seen = false;
      for (int c = 0; c < found; c++) {
        seen |= java.util.Arrays.equals(centres[c], p);
      }
      if (!seen && found < K) {
        centres[found++] = p.clone();
      }
    }
    for (int r = 0; r < rounds; r++) {
      double[][] sums = new double[K][3];
      for (double[] p : points) {
        int best = 0;
        double bestD = Double.MAX_VALUE;
        for (int c = 0; c < K; c++) {
          double dx = p[0] - centres[c][0];
          double dy = p[1] - centres[c][1];
          if (dx * dx + dy * dy < bestD) {
            bestD = dx * dx + dy * dy;
            best = c;
          }
        }
        sums[best][0]++;
        sums[best][1] += p[0];
        sums[best][2] += p[1];
      }
      for (int c = 0; c < K; c++) {
        if (sums[c][0] > 0) {
          centres[c] = new double[] {sums[c][1] / sums[c][0], sums[c][2] / sums[c][0]};
        }
      }
    }
    return centres;
  }

  private static void assertCentres(double[][] expected, String dir) throws Exception {
    List<String> lines = lines(cluster.fileSystem(), dir);
    assertEquals(K, lines.size(), lines.toString());
    for (int c = 0; c < K; c++) {
      String[] fields = lines.get(c).split("\t");
      assertEquals(String.valueOf(c), fields[0]);
      String[] xy = fields[1].split(",");
      for (int d = 0; d < 2; d++) {
        assertEquals(expected[c][d], Double.parseDouble(xy[d]), 1e-9,
            "centre " + c + " coordinate " + d + " (sums are added in another order)");
      }
    }
  }

  private static List<String> lines(FileSystem fs, String path) throws Exception {
    return JobRun.outputLines(fs, path);
  }
}
