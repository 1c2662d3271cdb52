package dev.tide.bench.mrcompare;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * MapReduce's TeraSort from hadoop-mapreduce-examples, run as {@code hadoop jar
 * hadoop-mapreduce-examples.jar terasort in out} would: its {@code run} samples the input's
 * keys in the client (100,000 from up to 10 splits), writes the partition file, submits, and
 * waits. It runs on a thread of its own while this class polls the RM every 250 ms, so the wall
 * time ends where Tide's client ends it, when the RM reports the application ended; it starts
 * before the sampling, as Tide's sort samples in its AM.
 */
final class MapReduceTeraSort {
  private static final long POLL_MILLIS = 250;
  private static final String JOB_NAME = "TeraSort"; // set by TeraSort.run

  private final SideBySideCluster cluster;
  private final YarnClient yarn;
  private final PrintStream log;

  MapReduceTeraSort(SideBySideCluster cluster, YarnClient yarn, PrintStream log) {
    this.cluster = cluster;
    this.yarn = yarn;
    this.log = log;
  }

  EngineRun run(long size, long inputBytes, String input, String output, Duration timeout)
      throws Exception {
    Set<ApplicationId> before = new HashSet<>();
    for (ApplicationReport app : yarn.getApplications()) {
      before.add(app.getApplicationId());
    }
    ExecutorService client = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "terasort-client");
      t.setDaemon(true);
      return t;
    });
    try {
      long start = System.nanoTime();
      Future<Integer> exit = client.submit(() -> ToolRunner.run(cluster.mapReduceSortConf(),
          new TeraSort(), new String[] {input, output}));
      long deadline = start + timeout.toNanos();
      ApplicationId appId = null;
      while (appId == null || !ApplicationUsage.ended(yarn, appId)) {
        if (System.nanoTime() > deadline) {
          if (appId != null) {
            yarn.killApplication(appId);
          }
          throw new IllegalStateException("TeraSort " + appId + " not done after " + timeout
              + (appId == null ? "" : "; killed"));
        }
        if (appId == null) {
          appId = submitted(before);
          if (appId == null && exit.isDone()) {
            throw new IllegalStateException("TeraSort ended (exit " + exit.get()
                + ") without submitting an application");
          }
          if (appId != null) {
            log.println(appId + " submitted (MapReduce TeraSort)");
          }
        }
        Thread.sleep(POLL_MILLIS);
      }
      long wallMillis = (System.nanoTime() - start) / 1_000_000;
      ApplicationUsage usage = ApplicationUsage.awaitEnd(yarn, appId, timeout);
      log.println(appId + " ended: " + usage);
      int code = exit.get(60, TimeUnit.SECONDS);
      String check = !usage.succeeded() ? "application " + usage.finalStatus()
          : code != 0 ? "TeraSort exit " + code : "not validated";
      return new EngineRun("MapReduce", size, inputBytes, appId.toString(), wallMillis, usage,
          check);
    } finally {
      client.shutdownNow();
    }
  }

  /** The TeraSort application that was not there before, once the RM knows it. */
  private ApplicationId submitted(Set<ApplicationId> before) throws Exception {
    for (ApplicationReport app : yarn.getApplications(Set.of("MAPREDUCE"))) {
      if (!before.contains(app.getApplicationId()) && JOB_NAME.equals(app.getName())) {
        return app.getApplicationId();
      }
    }
    return null;
  }
}
