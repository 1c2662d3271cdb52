package dev.tide.bench.mrcompare;

import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * Tide's built-in {@code sort} (and its {@code sortvalidate}), submitted through the real client
 * as {@code yarn jar tide-app.jar sort in out} would ({@link Submitter}). The sort samples its
 * split points in the AM, then one map task per input block and {@code tide.sort.reducers}
 * range-partitioned reduce tasks.
 */
final class TideSort {
  private final SideBySideCluster cluster;
  private final YarnClient yarn;
  private final PrintStream log;

  TideSort(SideBySideCluster cluster, YarnClient yarn, PrintStream log) {
    this.cluster = cluster;
    this.yarn = yarn;
    this.log = log;
  }

  /** Sorts {@code input} into {@code output}; the run's check is left to TeraValidate. */
  EngineRun run(long size, long inputBytes, String input, String output, Duration timeout)
      throws Exception {
    // The client returns when the RM reports the application ended (it polls every 250 ms).
    JobRun run = Submitter.run(cluster.tideConf(), log, "sort", input, output);
    if (run.appId() == null) {
      throw new IllegalStateException("Tide's client submitted nothing: " + run.output());
    }
    ApplicationId appId = ApplicationId.fromString(run.appId());
    ApplicationUsage usage = ApplicationUsage.awaitEnd(yarn, appId, timeout);
    String check = run.exitCode() != 0 ? "client exit " + run.exitCode() : "not validated";
    EngineRun result = new EngineRun("Tide", size, inputBytes, appId.toString(),
        run.wallMillis(), usage, check);
    return result.withTideTasks(TideTaskFigures.of(run.events(cluster.fileSystem(),
        cluster.tideConf().get("tide.eventLog.dir"))));
  }

  /**
   * Tide's {@code sortvalidate input sorted report}: the report's text ("records N, checksum H,
   * files F, ordered yes"), or why it failed. Not measured.
   */
  String validate(String input, String sorted, String report) throws Exception {
    JobRun run = Submitter.run(cluster.tideConf(), log, "sortvalidate", input, sorted, report);
    if (run.exitCode() != 0) {
      String out = run.output().strip();
      return "FAILED (client exit " + run.exitCode() + "): "
          + out.substring(Math.max(0, out.length() - 400)).replace('\n', ' ');
    }
    return readReport(new Path(report, "part-r-00000"));
  }

  private String readReport(Path file) throws IOException {
    FileSystem fs = cluster.fileSystem();
    try (var in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip()
          .replace("\n", ", ");
    }
  }
}
