package dev.tide.bench.mrcompare;

import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import dev.tide.it.WordCountOutput;
import java.io.PrintStream;
import java.time.Duration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * Tide's built-in {@code wordcount}, submitted through the real client as {@code yarn jar
 * tide-app.jar wordcount in out} would ({@link Submitter}). Its mapper folds repeated words in
 * a bounded map and its combiner sums per spill; one map task per input block.
 */
final class TideWordCount {
  private final SideBySideCluster cluster;
  private final YarnClient yarn;
  private final PrintStream log;

  TideWordCount(SideBySideCluster cluster, YarnClient yarn, PrintStream log) {
    this.cluster = cluster;
    this.yarn = yarn;
    this.log = log;
  }

  EngineRun run(long size, GrowingInput input, String output, Duration timeout) throws Exception {
    long inputBytes = input.bytes();
    // The client returns when the RM reports the application ended (it polls every 250 ms).
    JobRun run = Submitter.run(cluster.tideConf(), log, "wordcount", input.dir().toString(),
        output);
    if (run.appId() == null) {
      throw new IllegalStateException("Tide's client submitted nothing: " + run.output());
    }
    ApplicationId appId = ApplicationId.fromString(run.appId());
    ApplicationUsage usage = ApplicationUsage.awaitEnd(yarn, appId, timeout);
    FileSystem fs = cluster.fileSystem();
    String check = run.exitCode() != 0 ? "client exit " + run.exitCode()
        : EngineRun.compare(input.expectedCounts(), WordCountOutput.read(fs, output));
    return new EngineRun("Tide", size, inputBytes, appId.toString(), run.wallMillis(), usage, check);
  }
}
