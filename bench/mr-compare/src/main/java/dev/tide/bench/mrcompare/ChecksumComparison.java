package dev.tide.bench.mrcompare;

import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * {@code workload=checksums} (issue 19's cost target): Tide's built-in {@code sort} over the same
 * TeraGen data with {@code tide.executor.shuffle.checksum.enabled} true and false, in one run, per size.
 * Order per round: on, off; a second round ({@code checksumRounds=2}) goes off, on (ABBA), so a
 * drift of the machine's load over time weighs on both alike. Measured per run: wall time (client
 * submission to the RM reporting the end) and CPU-seconds: this JVM's own (utime + stime of
 * {@code /proc/self/stat}: the RM, NodeManagers, their {@code tide_shuffle} services, HDFS, the
 * client) plus every container process's, sampled from {@code /proc} while the job runs
 * ({@link ContainerCpu}: AM and executors). The first version counted containers by this JVM's
 * cutime + cstime; that lost every executor JVM whose launch shell was killed before it reaped it
 * (runs of the same setting differed by 40 %). Each output is checked with Tide's
 * {@code sortvalidate}. Used by the benchmark's main thread.
 */
final class ChecksumComparison {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(40);
  /** Linux USER_HZ: the unit of the CPU times in /proc/self/stat. */
  private static final double TICKS_PER_SECOND = 100.0;

  /** One measured sort. */
  record Run(long size, boolean checksums, long wallMillis, double cpuSeconds, String appId,
      String loadBefore, String loadAfter, String check) {
    double cpuSecondsPerGiB() {
      return cpuSeconds / (size / (double) (1L << 30));
    }
  }

  private final BenchSettings settings;
  private final SideBySideCluster cluster;
  private final YarnClient yarn;
  private final PrintStream log;
  private final TeraTools tera;

  ChecksumComparison(BenchSettings settings, SideBySideCluster cluster, YarnClient yarn,
      PrintStream log) {
    this.settings = settings;
    this.cluster = cluster;
    this.yarn = yarn;
    this.log = log;
    this.tera = new TeraTools(cluster);
  }

  List<Run> run() throws Exception {
    if (settings.warmUp()) {
      for (Run run : sizeRuns(8L << 20, 2, 1)) {
        log.printf("[bench] warm-up sort checksums=%s: %d ms, %s%n", run.checksums(),
            run.wallMillis(), run.check());
      }
    }
    List<Run> runs = new ArrayList<>();
    for (long size : settings.sizes()) {
      runs.addAll(sizeRuns(size, settings.files(size), settings.checksumRounds()));
    }
    return runs;
  }

  private List<Run> sizeRuns(long size, int files, int rounds) throws Exception {
    FileSystem fs = cluster.fileSystem();
    String name = (size >> 20) + "m";
    org.apache.hadoop.fs.Path input = new org.apache.hadoop.fs.Path("/crc/in-" + name);
    long genStart = System.nanoTime();
    tera.generate(size / TeraTools.RECORD_BYTES, files, input, settings.blockBytes());
    log.printf("[bench] checksums input %s: %d bytes in %d files, generated in %d ms%n", name,
        fs.getContentSummary(input).getLength(), files,
        (System.nanoTime() - genStart) / 1_000_000);
    List<Run> runs = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int turn = 0; turn < 2; turn++) {
        boolean on = (round % 2 == 0) == (turn == 0);
        String output = "/crc/out-" + name + "-" + (on ? "on" : "off") + "-" + round;
        LoadAverage.awaitBelow(settings.quietLoad(), settings.quietWaitSeconds(),
            "sort checksums=" + on + " " + BenchSettings.label(size), log);
        Run run = sort(size, input.toString(), output, on);
        log.printf("[bench] sort %s checksums %s: wall %d ms, CPU %.1f s (%.1f CPU-s/GiB); load"
            + " before %s, after %s; %s%n", BenchSettings.label(size), on ? "on" : "off",
            run.wallMillis(), run.cpuSeconds(), run.cpuSecondsPerGiB(), run.loadBefore(),
            run.loadAfter(), run.check());
        runs.add(run);
        fs.delete(new org.apache.hadoop.fs.Path(output), true);
      }
    }
    fs.delete(input, true);
    return runs;
  }

  private Run sort(long size, String input, String output, boolean checksums) throws Exception {
    Configuration conf = cluster.tideConf();
    conf.setBoolean("tide.executor.shuffle.checksum.enabled", checksums);
    String loadBefore = LoadAverage.now();
    long cpuBefore = cpuTicks();
    ContainerCpu containers = new ContainerCpu();
    JobRun run;
    ApplicationUsage usage;
    double containerSeconds;
    try {
      run = Submitter.run(conf, log, "sort", input, output);
      if (run.appId() == null) {
        throw new IllegalStateException("Tide's client submitted nothing: " + run.output());
      }
      usage = ApplicationUsage.awaitEnd(yarn, ApplicationId.fromString(run.appId()),
          RUN_TIMEOUT);
      awaitNoContainers();
    } finally {
      containerSeconds = containers.stop();
    }
    double ownSeconds = (cpuTicks() - cpuBefore) / TICKS_PER_SECOND;
    log.printf("[bench] CPU: %.1f s in %d container processes, %.1f s in the cluster's JVM%n",
        containerSeconds, containers.processes(), ownSeconds);
    double cpuSeconds = containerSeconds + ownSeconds;
    String loadAfter = LoadAverage.now();
    String check = run.exitCode() != 0 || !usage.succeeded() ? "FAILED: client exit "
        + run.exitCode() : validate(input, output);
    return new Run(size, checksums, run.wallMillis(), cpuSeconds, run.appId(), loadBefore,
        loadAfter, check);
  }

  /** Tide's sortvalidate of the output: "valid (records ..., ordered yes)" or what is wrong. */
  private String validate(String input, String output) throws Exception {
    String report = new TideSort(cluster, yarn, log).validate(input, output, output + "-report");
    cluster.fileSystem().delete(new org.apache.hadoop.fs.Path(output + "-report"), true);
    return (report.contains("ordered yes") ? "valid (" : "WRONG (") + report + ")";
  }

  /** Waits (at most 30 s) until no NodeManager runs a container: every one was reaped. */
  private void awaitNoContainers() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      int running = 0;
      for (NodeReport node : yarn.getNodeReports(NodeState.RUNNING)) {
        running += node.getNumContainers();
      }
      if (running == 0) {
        Thread.sleep(1000); // the NodeManager reports before its launch shell is reaped
        return;
      }
      Thread.sleep(200);
    }
    log.println("[bench] containers still running 30 s after the application ended");
  }

  /** utime + stime of this JVM (not its reaped children: see the class comment), in ticks. */
  static long cpuTicks() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // After "(comm) ": state is field 3, so utime (14) and stime (15) are f[11] and f[12].
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** The table and the verdict against the target: on <= +3 % CPU-s/GiB and <= +2 % wall. */
  static boolean print(List<Run> runs, List<Long> sizes, PrintStream log) {
    log.println("## Checksums on vs off (Tide sort)");
    log.println("| input | checksums | wall s | CPU s | CPU-s/GiB | load before | load after |"
        + " output | app |");
    log.println("|---|---|---|---|---|---|---|---|---|");
    boolean allValid = true;
    for (Run r : runs) {
      log.printf("| %s | %s | %.1f | %.1f | %.1f | %s | %s | %s | %s |%n",
          BenchSettings.label(r.size()), r.checksums() ? "on" : "off", r.wallMillis() / 1000.0,
          r.cpuSeconds(), r.cpuSecondsPerGiB(), r.loadBefore(), r.loadAfter(), r.check(),
          r.appId());
      allValid &= r.check().startsWith("valid");
    }
    log.println("| input | CPU-s/GiB on/off | wall on/off | target |");
    log.println("|---|---|---|---|");
    for (long size : sizes) {
      double[] cpu = new double[2];
      double[] wall = new double[2];
      for (Run r : runs) {
        if (r.size() == size) {
          cpu[r.checksums() ? 0 : 1] += r.cpuSecondsPerGiB();
          wall[r.checksums() ? 0 : 1] += r.wallMillis();
        }
      }
      double cpuRatio = cpu[0] / cpu[1];
      double wallRatio = wall[0] / wall[1];
      log.printf("| %s | %.3f | %.3f | %s |%n", BenchSettings.label(size), cpuRatio, wallRatio,
          cpuRatio <= 1.03 && wallRatio <= 1.02 ? "met (<= 1.03 CPU, <= 1.02 wall)"
              : "NOT met (<= 1.03 CPU, <= 1.02 wall)");
    }
    return allValid;
  }
}
