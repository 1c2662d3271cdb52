package dev.tide.bench.speculation;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.it.EmbeddedCluster;
import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import dev.tide.it.TextGenerator;
import dev.tide.it.WordCountOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Wordcount on a MiniYARNCluster of 3 NodeManagers with one slow executor: the JVM of executor 1
 * is throttled as a CPU quota (cgroup cpu.max) or a noisy neighbour throttles a container --
 * stopped (SIGSTOP) for {@code stopMs} of every {@code stopMs + runMs}. Each repetition runs the job with tide.speculation off, then on; the table gives wall
 * times (submit to end, as the client sees them) and what speculation launched.
 *
 * <p>Args: {@code repetitions stopMs runMs}.
 */
public final class SpeculationBench {
  private static final String EVENTS = "/tide-events";
  /** The executor made slow: the application's first (jobs run one at a time). */
  private static final String SLOW_EXECUTOR = "1";

  public static void main(String[] args) throws Exception {
    int repetitions = Integer.parseInt(args[0]);
    long stopMs = Long.parseLong(args[1]);
    long runMs = Long.parseLong(args[2]);
    try (EmbeddedCluster cluster = EmbeddedCluster.start("tide-spec", 3,
        Path.of("target", "spec-cluster"))) {
      FileSystem fs = cluster.fileSystem();
      Map<String, Long> expected = TextGenerator.write(fs, new org.apache.hadoop.fs.Path("/in"),
          12, 1_000_000, 7);
      List<String> rows = new ArrayList<>();
      for (int rep = 1; rep <= repetitions; rep++) {
        for (boolean speculation : new boolean[] {false, true}) {
          Configuration conf = cluster.clientConf();
          conf.set("tide.eventLog.dir", EVENTS);
          conf.set("tide.dynamicAllocation.minExecutors", "3");
          conf.set("tide.dynamicAllocation.maxExecutors", "3");
          conf.set("tide.dynamicAllocation.initialExecutors", "3");
          conf.set("tide.yarn.placement", "spread");
          conf.set("tide.wordcount.reducers", "3");
          conf.set("tide.wordcount.splitSize", "500000");
          conf.setBoolean("tide.speculation", speculation);
          String out = "/out-" + rep + "-" + speculation;
          Throttler throttler = new Throttler(stopMs, runMs);
          throttler.start();
          JobRun run;
          try {
            run = Submitter.run(conf, OutputStream.nullOutputStream(), "wordcount", "/in", out);
          } finally {
            throttler.finish();
          }
          boolean exact = run.exitCode() == 0 && expected.equals(WordCountOutput.read(fs, out));
          List<EventLine> events = run.events(fs, EVENTS);
          long speculated = JobRun.named(events, EventName.TASK_SPECULATED).size();
          long beaten = JobRun.named(events, EventName.TASK_END).stream()
              .filter(e -> "true".equals(e.get("beaten"))).count();
          String row = String.format("| %d | %s | %d | %s | %d | %d | %d |", rep,
              speculation ? "on" : "off", run.wallMillis(), exact ? "exact" : "WRONG exit "
              + run.exitCode(), speculated, beaten, throttler.throttled.size());
          System.out.println("[bench] " + row);
          System.out.println("[bench]   slowest attempts: " + slowest(events));
          rows.add(row);
        }
      }
      System.out.println("| repetition | tide.speculation | wall ms | output | speculative"
          + " attempts | attempts beaten | throttled executor JVMs |");
      System.out.println("|---|---|---|---|---|---|---|");
      rows.forEach(System.out::println);
    }
  }

  /** The 4 longest task attempts: stage/index@executor ms result. */
  private static String slowest(List<EventLine> events) {
    Map<String, EventLine> starts = new java.util.HashMap<>();
    JobRun.named(events, EventName.TASK_START).forEach(e -> starts.put(e.get("task"), e));
    List<String> out = new ArrayList<>();
    JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> starts.containsKey(e.get("task")))
        .sorted(java.util.Comparator.comparingLong(
            e -> starts.get(e.get("task")).timeMillis() - e.timeMillis()))
        .limit(4)
        .forEach(e -> out.add(e.get("stage") + "/" + e.get("index") + "@" + e.get("executor")
            + " " + (e.timeMillis() - starts.get(e.get("task")).timeMillis()) + "ms "
            + e.get("result") + ("true".equals(e.get("beaten")) ? " beaten" : "")));
    return out.toString();
  }

  /** Stops and continues the executor JVMs of the slow node in turn, until finished. */
  private static final class Throttler extends Thread {
    private final long stopMs;
    private final long runMs;
    private volatile boolean done;
    final Set<Long> throttled = new HashSet<>();

    Throttler(long stopMs, long runMs) {
      super("slow-node");
      setDaemon(true);
      this.stopMs = stopMs;
      this.runMs = runMs;
    }

    @Override
    public void run() {
      try {
        while (!done) {
          List<Long> pids = slowExecutors();
          throttled.addAll(pids);
          signal("STOP", pids);
          TimeUnit.MILLISECONDS.sleep(stopMs); // the duty cycle being injected
          signal("CONT", pids);
          TimeUnit.MILLISECONDS.sleep(runMs);
        }
      } catch (Exception e) {
        System.out.println("[bench] throttler stopped: " + e);
      }
    }

    void finish() throws Exception {
      done = true;
      join(10_000);
      signal("CONT", new ArrayList<>(throttled));
    }

    private List<Long> slowExecutors() throws IOException {
      List<Long> pids = new ArrayList<>();
      try (var procs = Files.list(Path.of("/proc"))) {
        for (Path proc : (Iterable<Path>) procs::iterator) {
          String name = proc.getFileName().toString();
          if (!name.chars().allMatch(Character::isDigit)) {
            continue;
          }
          try {
            String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")),
                StandardCharsets.UTF_8);
            List<String> args = List.of(cmdline.split("\0"));
            int id = args.indexOf("--executor-id");
            if (args.contains("dev.tide.executor.ExecutorMain") && id >= 0
                && id + 1 < args.size() && args.get(id + 1).equals(SLOW_EXECUTOR)) {
              pids.add(Long.parseLong(name));
            }
          } catch (IOException gone) {
            // the process ended meanwhile
          }
        }
      }
      return pids;
    }

    private static void signal(String signal, List<Long> pids) throws Exception {
      if (pids.isEmpty()) {
        return;
      }
      List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
      pids.forEach(p -> command.add(Long.toString(p)));
      Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
      kill.getInputStream().readAllBytes();
      kill.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
