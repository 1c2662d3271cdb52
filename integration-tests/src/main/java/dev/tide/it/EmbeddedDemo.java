package dev.tide.it;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * The one-command try-out: starts an in-process MiniDFSCluster and a MiniYARNCluster with three
 * NodeManagers loading {@code tide_shuffle}, generates text, runs {@code wordcount}, a
 * {@code sleep} job with dynamic allocation and a minute of {@code stream-rate} with streaming
 * dynamic allocation, and prints the results, an executor timeline and a batch timeline.
 * Run it with {@code ./tide-demo} from the repository root.
 */
public final class EmbeddedDemo {
  private static final String EVENTS = "/tide-events";

  private EmbeddedDemo() {}

  public static void main(String[] args) {
    // Jersey and Guice inside the mini clusters log through java.util.logging to the console.
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.SEVERE);
    // Exit explicitly either way: the mini clusters leave non-daemon threads behind.
    try {
      run(args);
      System.exit(0);
    } catch (Throwable e) {
      System.err.println("[tide-demo] FAILED: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(String[] args) throws Exception {
    long start = System.nanoTime();
    Path work = Path.of(args.length > 0 ? args[0] : "target/tide-demo");
    say("Starting HDFS and YARN (3 NodeManagers with the tide_shuffle aux service) in " + work);
    say("Cluster logs: " + work.resolve("demo.log"));
    try (EmbeddedCluster cluster = EmbeddedCluster.start("tide-demo", 3, work)) {
      FileSystem fs = cluster.fileSystem();
      fs.delete(new org.apache.hadoop.fs.Path("/demo"), true);
      say("Generating 4 MB of text in hdfs:///demo/in");
      Map<String, Long> expected = TextGenerator.write(fs, new org.apache.hadoop.fs.Path(
          "/demo/in"), 4, 1_000_000, 7);

      Configuration conf = cluster.clientConf();
      conf.set("tide.eventLog.dir", EVENTS);
      conf.set("tide.dynamicAllocation.maxExecutors", "8");
      conf.set("tide.dynamicAllocation.executorIdleTimeout", "3s");

      say("$ tide wordcount /demo/in /demo/out");
      JobRun wordcount = Submitter.run(conf, System.out, "wordcount", "/demo/in", "/demo/out");
      if (wordcount.exitCode() != 0) {
        throw new IllegalStateException("wordcount failed:\n" + wordcount.output());
      }
      printTopWords(fs, expected);
      say(String.format("wordcount took %.1f s from submit to finish", wordcount.wallMillis()
          / 1000.0));

      say("$ tide sleep -m 24 -r 2 -mt 1500 -rt 4000 -b 1048576");
      JobRun sleep = Submitter.run(conf, System.out, "sleep", "-m", "24", "-r", "2", "-mt",
          "1500", "-rt", "4000", "-b", "1048576");
      if (sleep.exitCode() != 0) {
        throw new IllegalStateException("sleep failed:\n" + sleep.output());
      }
      List<EventLine> events = sleep.events(fs, EVENTS);
      printTimeline(events);
      printElasticity(events);
      say(String.format("sleep took %.1f s from submit to finish", sleep.wallMillis() / 1000.0));

      say("$ tide stream-rate /demo/stream -D tide.streaming.rate.schedule=100@0s,400@16s,100@40s"
          + " -D tide.streaming.dynamicAllocation.enabled=true (a 4x step up, then down; 60 s)");
      Configuration stream = cluster.clientConf();
      stream.set("tide.eventLog.dir", EVENTS);
      stream.set("tide.streaming.batchInterval", "2s");
      stream.set("tide.streaming.rate.schedule", "100@0s,400@16s,100@40s");
      stream.set("tide.streaming.rate.cost", "4ms");
      stream.set("tide.streaming.rate.spin", "false"); // a small machine: sleep the cost
      stream.set("tide.streaming.rate.splits", "8");
      stream.set("tide.streaming.stopAfter", "60s");
      stream.set("tide.streaming.dynamicAllocation.enabled", "true");
      stream.set("tide.streaming.dynamicAllocation.maxExecutors", "4");
      stream.set("tide.dynamicAllocation.enabled", "false");
      JobRun rate = Submitter.run(stream, System.out, "stream-rate", "/demo/stream");
      if (rate.exitCode() != 0) {
        throw new IllegalStateException("stream-rate failed:\n" + rate.output());
      }
      System.out.println("Batch timeline of the streaming job (time from the stream's start):");
      System.out.print(batchTimeline(rate.events(fs, EVENTS)));
    }
    say(String.format("Demo done in %.1f s", (System.nanoTime() - start) / 1e9));
  }

  private static void printTopWords(FileSystem fs, Map<String, Long> expected) throws Exception {
    List<String[]> rows = new ArrayList<>();
    long words = 0;
    for (FileStatus part : fs.globStatus(new org.apache.hadoop.fs.Path("/demo/out/part-*"))) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(part.getPath()),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          rows.add(line.split("\t"));
          words++;
        }
      }
    }
    rows.sort((a, b) -> Long.compare(Long.parseLong(b[1]), Long.parseLong(a[1])));
    System.out.println("Top words (of " + words + " distinct):");
    for (int i = 0; i < Math.min(5, rows.size()); i++) {
      String[] row = rows.get(i);
      boolean ok = Long.valueOf(row[1]).equals(expected.get(row[0]));
      System.out.printf("  %-8s %8s  %s%n", row[0], row[1], ok ? "(matches the input)"
          : "(MISMATCH: expected " + expected.get(row[0]) + ")");
    }
  }

  /** Prints time, target, executors and pending tasks, one row per timeline sample. */
  static void printTimeline(List<EventLine> events) {
    List<EventLine> samples = JobRun.named(events, EventName.TIMELINE);
    if (samples.isEmpty()) {
      return;
    }
    long t0 = samples.get(0).timeMillis();
    System.out.println("Executor timeline of the sleep job:");
    System.out.println("  time   target  executors  pending  running  executors");
    for (EventLine s : samples) {
      int executors = Integer.parseInt(s.get("executors"));
      System.out.printf("  %5.1fs %6s %10d %8s %8s  %s%n", (s.timeMillis() - t0) / 1000.0,
          s.get("target"), executors, s.get("pendingTasks"), s.get("runningTasks"),
          "#".repeat(executors));
    }
  }

  /**
   * One row per completed batch of a streaming job: its time from the stream's start, records,
   * processing time, scheduling delay, executors and target.
   */
  public static String batchTimeline(List<EventLine> events) {
    List<EventLine> batches = JobRun.named(events, EventName.BATCH_COMPLETED);
    if (batches.isEmpty()) {
      return "  (no batch completed)\n";
    }
    long interval = batches.size() > 1
        ? batches.get(1).getLong("batch") - batches.get(0).getLong("batch") : 0;
    long start = batches.get(0).getLong("batch") - interval;
    StringBuilder text = new StringBuilder(String.format("  %7s %8s %11s %9s %9s %6s%n",
        "time(s)", "records", "process(ms)", "delay(ms)", "executors", "target"));
    for (EventLine b : batches) {
      text.append(String.format("  %7.0f %8d %11d %9d %9s %6s  %s%s%n",
          (b.getLong("batch") - start) / 1000.0, b.getLong("records"), b.getLong("processingMs"),
          b.getLong("schedulingDelayMs"), b.get("executors"), b.get("target"),
          "#".repeat((int) b.getLong("executors")),
          b.get("delayed").equals("true") ? "  delayed" : ""));
    }
    return text.toString();
  }

  /** Backlog to first executor, the peak, and what was left once idle executors went. */
  static void printElasticity(List<EventLine> events) {
    long backlogAt = JobRun.named(events, EventName.STAGE_SUBMITTED).get(0).timeMillis();
    List<EventLine> added = JobRun.named(events, EventName.EXECUTOR_ADDED);
    int peak = 0;
    int last = 0; // executors running at the last sample: the reduce stage's
    for (EventLine sample : JobRun.named(events, EventName.TIMELINE)) {
      last = Integer.parseInt(sample.get("executors"));
      peak = Math.max(peak, last);
    }
    int removed = JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL).size();
    if (!added.isEmpty()) {
      say(String.format("backlog to first executor running: %.2f s; peak %d executors; %d"
          + " removed after the idle timeout; %d running at the end (the reduce stage)",
          (added.get(0).timeMillis() - backlogAt) / 1000.0, peak, removed, last));
    }
  }

  private static void say(String message) {
    System.out.println("[tide-demo] " + message);
  }
}
