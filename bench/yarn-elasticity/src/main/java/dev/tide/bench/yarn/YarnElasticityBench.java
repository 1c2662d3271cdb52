package dev.tide.bench.yarn;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.it.EmbeddedCluster;
import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import java.io.File;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * Elasticity on a MiniYARNCluster with three NodeManagers (the NM heartbeat is 200 ms there).
 *
 * <p>For each allocation setting and N in 1, 4, 8 it runs {@code sleep -m 4N -mt 2000 -r 1
 * -rt 3000} with {@code maxExecutors=N}, and reads the event log:
 *
 * <ul>
 *   <li>backlog to running: the map stage's {@code stageSubmitted} to the first and the N-th
 *       {@code executorAdded}, with the first executor's path split at the AM's
 *       {@code containerAllocated}, {@code executorLaunched} and the driver's
 *       {@code executorRegistered};
 *   <li>idle to released: for every {@code executorIdleRemoval}, the executor's last
 *       {@code taskEnd} (idle since) to the removal (the idle timeout firing) and the removal to
 *       the {@code containerCompleted} naming it.
 * </ul>
 *
 * <p>Then it times bare JVM starts ({@code java -version}, a hello-world main with the executors'
 * flags, the same with the containers' classpath) for comparison.
 */
public final class YarnElasticityBench {
  private static final String EVENTS = "/tide-events";
  private static final int[] EXECUTORS = {1, 4, 8};
  private static final String JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

  private YarnElasticityBench() {}

  public static void main(String[] args) {
    try {
      run(Path.of(args.length > 0 ? args[0] : "target/bench-work"));
      System.exit(0);
    } catch (Throwable e) {
      System.err.println("[bench] FAILED: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  /** One allocation setting: a name and the settings it adds. */
  private record Setting(String name, Map<String, String> conf) {}

  private static void run(Path work) throws Exception {
    List<Setting> settings = List.of(
        new Setting("defaults", Map.of()),
        new Setting("Spark's policy, idle timeout 1s", Map.of(
            "tide.dynamicAllocation.executorIdleTimeout", "1s",
            "tide.dynamicAllocation.rampUp", "exponential",
            "tide.dynamicAllocation.immediateFirstRequest", "false",
            "tide.dynamicAllocation.lookahead", "false",
            "tide.dynamicAllocation.earlyRelease", "false",
            "tide.dynamicAllocation.adaptiveIdleTimeout", "false",
            "tide.dynamicAllocation.arrivalHold", "false",
            "tide.dynamicAllocation.arrivalTrend", "false",
            "tide.dynamicAllocation.arrivalAtOnce", "false")));
    List<String> backlogRows = new ArrayList<>();
    List<String> idleRows = new ArrayList<>();
    say("starting HDFS and YARN (3 NodeManagers) in " + work);
    try (EmbeddedCluster cluster = EmbeddedCluster.start("tide-bench", 3, work)) {
      long heartbeat = cluster.yarn().getConfig().getLong(
          "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", -1);
      say("NodeManager heartbeat interval: " + heartbeat + " ms");
      for (Setting setting : settings) {
        for (int n : EXECUTORS) {
          Configuration conf = cluster.clientConf();
          conf.set("tide.eventLog.dir", EVENTS);
          conf.set("tide.dynamicAllocation.maxExecutors", Integer.toString(n));
          setting.conf().forEach(conf::set);
          String maps = Integer.toString(4 * n);
          say("[" + setting.name() + "] sleep -m " + maps + " -mt 2000 -r 1 -rt 3000, maxExecutors="
              + n);
          JobRun job = Submitter.run(conf, OutputStream.nullOutputStream(), "sleep", "-m", maps,
              "-mt", "2000", "-r", "1", "-rt", "3000");
          if (job.exitCode() != 0) {
            throw new IllegalStateException("sleep failed:\n" + job.output());
          }
          List<EventLine> events = job.events(cluster.fileSystem(), EVENTS);
          backlogRows.add(backlogRow(setting.name(), n, events));
          idleRows.add(idleRow(setting.name(), n, events));
          say(String.format("  done in %.1f s (%s)", job.wallMillis() / 1000.0, job.appId()));
        }
      }
    }
    List<String> jvmRows = jvmStarts();

    System.out.println();
    System.out.println("## Backlog to executors running (ms after the map stage's stageSubmitted;"
        + " first executor split into allocated / launched / registered / added)");
    System.out.println("| setting | N | container allocated | launched | registered | first"
        + " added | N-th added | added | first executor's JVM start to registration |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    backlogRows.forEach(System.out::println);
    System.out.println();
    System.out.println("## Idle to released (ms; per executor removed as idle: median / max)");
    System.out.println("| setting | N | removed | idle -> idle removal | idle removal -> container"
        + " completed | idle -> completed |");
    System.out.println("|---|---|---|---|---|---|");
    idleRows.forEach(System.out::println);
    System.out.println();
    System.out.println("## Bare JVM start (ms, wall time of the process; median of 5 / min)");
    System.out.println("| command | median | min |");
    System.out.println("|---|---|---|");
    jvmRows.forEach(System.out::println);
  }

  private static String backlogRow(String setting, int n, List<EventLine> events) {
    long t0 = JobRun.named(events, EventName.STAGE_SUBMITTED).get(0).timeMillis();
    List<EventLine> added = JobRun.named(events, EventName.EXECUTOR_ADDED);
    String firstExecutor = added.isEmpty() ? null : added.get(0).get("executor");
    String startup = "-";
    for (EventLine e : JobRun.named(events, EventName.EXECUTOR_REGISTERED)) {
      if (e.get("executor").equals(firstExecutor)) {
        startup = e.get("startupMs");
      }
    }
    return String.format("| %s | %d | %s | %s | %s | %s | %s | %d | %s |", setting, n,
        first(events, EventName.CONTAINER_ALLOCATED, null, t0),
        first(events, EventName.EXECUTOR_LAUNCHED, firstExecutor, t0),
        first(events, EventName.EXECUTOR_REGISTERED, firstExecutor, t0),
        added.isEmpty() ? "-" : Long.toString(added.get(0).timeMillis() - t0),
        added.size() < n ? "- (" + added.size() + " added)"
            : Long.toString(added.get(n - 1).timeMillis() - t0),
        added.size(), startup);
  }

  /** The first event of that name (for that executor when given), in ms after t0. */
  private static String first(List<EventLine> events, EventName name, String executor,
      long t0) {
    for (EventLine e : JobRun.named(events, name)) {
      if (executor == null || executor.equals(e.get("executor"))) {
        return Long.toString(e.timeMillis() - t0);
      }
    }
    return "-";
  }

  private static String idleRow(String setting, int n, List<EventLine> events) {
    Map<String, Long> lastTaskEnd = new HashMap<>();
    List<Long> toRemoval = new ArrayList<>();
    List<Long> toCompleted = new ArrayList<>();
    List<Long> total = new ArrayList<>();
    Map<String, Long> removedAt = new HashMap<>();
    Map<String, Long> idleAt = new HashMap<>();
    for (EventLine e : events) {
      Optional<EventName> name = e.eventName();
      if (name.isEmpty()) {
        continue; // an event this version does not know: readers ignore it
      }
      switch (name.get()) {
        case TASK_END -> lastTaskEnd.put(e.get("executor"), e.timeMillis());
        case EXECUTOR_IDLE_REMOVAL -> {
          String id = e.get("executor");
          removedAt.put(id, e.timeMillis());
          Long idle = lastTaskEnd.get(id);
          if (idle != null) {
            idleAt.put(id, idle);
            toRemoval.add(e.timeMillis() - idle);
          }
        }
        case CONTAINER_COMPLETED -> {
          String id = e.get("executor");
          Long removed = removedAt.remove(id);
          if (removed != null) {
            toCompleted.add(e.timeMillis() - removed);
            Long idle = idleAt.get(id);
            if (idle != null) {
              total.add(e.timeMillis() - idle);
            }
          }
        }
        default -> { }
      }
    }
    int removed = JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL).size();
    return String.format("| %s | %d | %d | %s | %s | %s |", setting, n, removed,
        stats(toRemoval), stats(toCompleted), stats(total));
  }

  private static String stats(List<Long> values) {
    if (values.isEmpty()) {
      return "-";
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get((sorted.size() - 1) / 2) + " / " + sorted.get(sorted.size() - 1);
  }

  private static List<String> jvmStarts() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String own = Path.of(Hello.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString();
    String containerClasspath = System.getProperty("java.class.path");
    List<String> flags = List.of(JVM_FLAGS.split(" "));
    List<String> rows = new ArrayList<>();
    rows.add(time("`java -version`", List.of(java, "-version")));
    List<String> hello = new ArrayList<>(List.of(java, "-Xmx128m"));
    hello.addAll(flags);
    hello.addAll(List.of("-cp", own, Hello.class.getName()));
    rows.add(time("hello world, `-Xmx128m " + JVM_FLAGS + "`", hello));
    List<String> helloBigCp = new ArrayList<>(List.of(java, "-Xmx128m"));
    helloBigCp.addAll(flags);
    helloBigCp.addAll(List.of("-cp", containerClasspath, Hello.class.getName()));
    rows.add(time("same, with the containers' classpath ("
        + containerClasspath.split(File.pathSeparator).length + " entries)", helloBigCp));
    return rows;
  }

  private static String time(String label, List<String> command) throws Exception {
    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      long start = System.nanoTime();
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException("failed: " + command);
      }
      if (i > 0) { // the first one warms the page cache
        millis.add((System.nanoTime() - start) / 1_000_000);
      }
    }
    Collections.sort(millis);
    return String.format("| %s | %d | %d |", label, millis.get(millis.size() / 2), millis.get(0));
  }

  private static void say(String message) {
    System.out.println("[bench] " + message);
  }
}
