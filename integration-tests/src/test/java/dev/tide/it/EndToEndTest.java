package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.testing.Await;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.AuxServices;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.AuxServicesEvent;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.AuxServicesEventType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Whole-system scenarios on a MiniYARNCluster (3 NodeManagers loading the real tide_shuffle
 * service) and a MiniDFSCluster: jobs submitted through the real client, AM and executor JVMs in
 * real containers.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class EndToEndTest {
  private static final String EVENTS = "/tide-events-e2e";
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
  }

  private static Configuration jobConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "2s");
    return conf;
  }

  @Test
  void wordcountOverHdfsGivesExactlyTheCountsOfTheInput() throws Exception {
    FileSystem fs = cluster.fileSystem();
    Map<String, Long> expected = TextGenerator.write(fs, new org.apache.hadoop.fs.Path("/wc/in"),
        3, 1_500_000, 42);
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    conf.set("tide.wordcount.reducers", "3");

    JobRun run = Submitter.run(conf, System.out, "wordcount", "/wc/in", "/wc/out");

    assertEquals(0, run.exitCode(), run.output());
    // The RM's web server took an ephemeral port: the client prints that one, not port 0.
    assertTrue(run.output().contains(run.appId() + " tracking URL: http://"
        + conf.get("yarn.resourcemanager.webapp.address") + "/proxy/" + run.appId() + "/"),
        run.output());
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path("/wc/out/_SUCCESS")));
    Map<String, Long> actual = WordCountOutput.read(fs, "/wc/out");
    assertEquals(expected, actual);
    List<EventLine> events = run.events(fs, EVENTS);
    long maps = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> e.get("kind").equals("MAP") && e.get("result").equals("SUCCEEDED")).count();
    assertTrue(maps >= 5, "the input spans several blocks, so several map tasks: " + maps);
    System.out.printf("wordcount: %d words, %d maps, submit-to-finish %d ms%n", actual.size(),
        maps, run.wallMillis());
  }

  @Test
  void executorsRemovedWhileIdleLoseNoShuffleData() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "3");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "1s");
    // 6 maps of 1.5 s on 3 executors, then one reduce that waits 6 s before it fetches: the two
    // executors without the reduce go idle and are removed before the fetch.
    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "6", "-r", "1", "-mt", "1500",
        "-rt", "0", "-rd", "6000", "-b", "262144", "-o", "/sleep-idle/out");

    assertEquals(0, run.exitCode(), run.output());
    FileSystem fs = cluster.fileSystem();
    String line = readAll(fs, "/sleep-idle/out/part-r-00000");
    assertTrue(line.startsWith("partition 0 records " + (6 * 256) + " "), line);

    List<EventLine> events = run.events(fs, EVENTS);
    // Every map ran exactly once.
    List<EventLine> mapStarts = JobRun.named(events, EventName.TASK_START).stream()
        .filter(e -> e.get("kind").equals("MAP")).toList();
    assertEquals(6, mapStarts.size(), "no map task ran twice");
    Set<String> mapExecutors = new HashSet<>();
    mapStarts.forEach(e -> mapExecutors.add(e.get("executor")));
    EventLine reduceEnd = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> e.get("kind").equals("REDUCE")).findFirst().orElseThrow();
    long fetchStart = reduceEnd.getLong("fetchStartMillis");
    // Executors removed for idleness before the reduce fetched.
    Map<String, Long> removedAt = new HashMap<>();
    for (EventLine e : JobRun.named(events, EventName.EXECUTOR_REMOVED)) {
      removedAt.put(e.get("executor"), e.timeMillis());
    }
    Set<String> removedBeforeFetch = new HashSet<>();
    for (String executor : mapExecutors) {
      if (removedAt.containsKey(executor) && removedAt.get(executor) < fetchStart) {
        removedBeforeFetch.add(executor);
      }
    }
    assertFalse(removedBeforeFetch.isEmpty(),
        "some map executor was removed before the reduce fetched; removed " + removedAt
            + ", fetch at " + fetchStart);
    // They were removed because they sat idle: the policy's idle removal came first.
    Map<String, Long> idleRemovalAt = new HashMap<>();
    for (EventLine e : JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL)) {
      idleRemovalAt.putIfAbsent(e.get("executor"), e.timeMillis());
    }
    for (String executor : removedBeforeFetch) {
      assertTrue(idleRemovalAt.containsKey(executor), "executor " + executor
          + " was removed as idle (executorIdleRemoval); idle removals " + idleRemovalAt);
      assertTrue(idleRemovalAt.get(executor) <= removedAt.get(executor), "executor " + executor
          + " idle removal at " + idleRemovalAt.get(executor) + ", gone at "
          + removedAt.get(executor));
    }
    // YARN reported their containers completed as released by the AM (ABORTED), or, when the
    // executor's own exit reached the RM first, as exited cleanly: the driver told it to exit.
    Set<String> released = new HashSet<>();
    Set<String> completedBeforeFetch = new HashSet<>();
    for (EventLine e : JobRun.named(events, EventName.CONTAINER_COMPLETED)) {
      if (removedBeforeFetch.contains(e.get("executor"))) {
        int exitStatus = Integer.parseInt(e.get("exitStatus"));
        assertTrue(exitStatus == ContainerExitStatus.ABORTED
            || exitStatus == ContainerExitStatus.SUCCESS, e.toString());
        assertEquals("false", e.get("failure"), e.toString());
        released.add(e.get("executor"));
        if (e.timeMillis() < fetchStart) {
          completedBeforeFetch.add(e.get("executor"));
        }
      }
    }
    assertEquals(removedBeforeFetch, released);
    // The event is logged when the AM hears of the completion, so the container was gone
    // before the reducer fetched: its map output came from the NodeManager's service alone.
    assertFalse(completedBeforeFetch.isEmpty(), "YARN reported some released container"
        + " completed before the reduce fetched at " + fetchStart + ": "
        + JobRun.named(events, EventName.CONTAINER_COMPLETED));
    long firstCompletion = JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> completedBeforeFetch.contains(e.get("executor")))
        .mapToLong(EventLine::timeMillis).min().orElseThrow();
    System.out.printf("idle removal: first released container completed %d ms before the"
        + " fetch%n", fetchStart - firstCompletion);
    System.out.printf("idle removal: %d map executors, %d removed before the fetch, reduce"
        + " fetched %s bytes from %s shuffle services; submit-to-finish %d ms%n",
        mapExecutors.size(), removedBeforeFetch.size(), reduceEnd.get("bytesFetched"),
        reduceEnd.get("shuffleServices"), run.wallMillis());
  }

  @Test
  void jobSurvivesAnExecutorKilledFromOutside() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "3");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "30s");
    CompletableFuture<JobRun> job = submitAsync(conf, "sleep", "-m", "9", "-r", "2", "-mt",
        "2000", "-rt", "200", "-b", "65536", "-o", "/sleep-kill/out");
    FileSystem fs = cluster.fileSystem();
    // Wait for an executor that is running a task, then kill its container through the RM.
    String victim = Await.value(Duration.ofSeconds(90), "an executor started running tasks",
        () -> {
          String running = runningExecutorContainer(fs);
          assertTrue(running != null || !job.isDone(), "an executor started running tasks");
          return running;
        });
    try (YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(cluster.clientConf());
      yarn.start();
      yarn.signalToContainer(ContainerId.fromString(victim),
          SignalContainerCommand.FORCEFUL_SHUTDOWN);
    }
    JobRun run = job.get(180, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(readAll(fs, "/sleep-kill/out/part-r-00000").startsWith("partition 0 records "
        + (9 * 32) + " "));
    assertTrue(readAll(fs, "/sleep-kill/out/part-r-00001").startsWith("partition 1 records "
        + (9 * 32) + " "));
    String killed = victim;
    EventLine completed = JobRun.named(run.events(fs, EVENTS), EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> killed.equals(e.get("container"))).findFirst().orElseThrow();
    assertNotEquals(ContainerExitStatus.ABORTED, Integer.parseInt(completed.get("exitStatus")));
    System.out.printf("killed container %s (exit status %s); job finished in %d ms%n", victim,
        completed.get("exitStatus"), run.wallMillis());
  }

  @Test
  void lostMapOutputIsRecomputedWhenTheReducerCannotFetchIt() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    CompletableFuture<JobRun> job = submitAsync(conf, "sleep", "-m", "4", "-r", "1", "-mt",
        "100", "-rd", "4000", "-b", "16384", "-o", "/sleep-lost/out");
    FileSystem fs = cluster.fileSystem();
    // Once the reduce has started (it waits 4 s before fetching), delete map 0's output from
    // the NodeManager's disk, as a failed disk or a cleaner would.
    String appId = awaitRunningApp(fs, "REDUCE", job);
    int deleted = deleteFromNodeManagers(appId, appDir -> List.of(
        ShuffleLayout.dataFile(appDir, 0, 0), ShuffleLayout.indexFile(appDir, 0, 0)));
    assertEquals(2, deleted, "map 0's data and index files were found and deleted");
    JobRun run = job.get(180, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(readAll(fs, "/sleep-lost/out/part-r-00000").startsWith("partition 0 records "
        + (4 * 16) + " "));
    List<EventLine> events = run.events(fs, EVENTS);
    assertEquals(List.of("0"), JobRun.named(events, EventName.MAP_OUTPUT_LOST).stream()
        .map(e -> e.get("map")).toList());
    long map0Runs = JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("kind")
        .equals("MAP") && e.get("index").equals("0") && e.get("result").equals("SUCCEEDED"))
        .count();
    assertEquals(2, map0Runs, "map 0 ran again after its output was lost");
  }

  /**
   * An executor stopped (SIGSTOP) while it runs the reduce keeps its TCP connection open, so
   * only its missing heartbeats show it is gone: after tide.executor.heartbeatTimeout the driver
   * declares it lost, the AM releases its container, the reduce runs again elsewhere and the
   * job succeeds with the exact output. Before heartbeats the job waited for it for ever.
   */
  @Test
  void anExecutorStoppedWhileRunningTheReduceIsDeclaredLostAndTheReduceRerun() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    conf.set("tide.executor.heartbeatInterval", "1s");
    conf.set("tide.executor.heartbeatTimeout", "5s");
    CompletableFuture<JobRun> job = submitAsync(conf, "sleep", "-m", "2", "-r", "1", "-mt",
        "100", "-rt", "6000", "-b", "16384", "-o", "/sleep-stopped/out");
    FileSystem fs = cluster.fileSystem();
    String appId = awaitRunningApp(fs, "REDUCE", job);
    String executor = null;
    for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
      if (appId.equals(JobRun.appId(events))) {
        executor = JobRun.named(events, EventName.TASK_START).stream()
            .filter(e -> e.get("kind").equals("REDUCE")).findFirst().orElseThrow()
            .get("executor");
      }
    }
    long pid = executorPid(appId, executor);
    JobRun run;
    try {
      signal("STOP", pid);
      // Without heartbeats this wait ended in a TimeoutException: the job never finished.
      run = job.get(120, TimeUnit.SECONDS);
    } finally {
      signal("CONT", pid);
      signal("KILL", pid);
    }
    assertEquals(0, run.exitCode(), run.output());
    assertTrue(readAll(fs, "/sleep-stopped/out/part-r-00000").startsWith("partition 0 records "
        + (2 * 16) + " "));
    List<EventLine> events = run.events(fs, EVENTS);
    String stopped = executor;
    EventLine removed = JobRun.named(events, EventName.EXECUTOR_REMOVED).stream()
        .filter(e -> stopped.equals(e.get("executor"))).findFirst().orElseThrow();
    assertTrue(removed.get("reason").matches("lost: no heartbeat for \\d+ s"
        + " \\(tide.executor.heartbeatTimeout = 5s\\)"), removed.toString());
    assertTrue(JobRun.named(events, EventName.CONTAINER_RELEASED).stream()
        .anyMatch(e -> e.get("reason").equals("lost: no heartbeat")),
        "the AM released the lost executor's container");
    List<EventLine> reduceEnds = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> e.get("kind").equals("REDUCE")).toList();
    assertEquals(List.of("EXECUTOR_LOST", "SUCCEEDED"),
        reduceEnds.stream().map(e -> e.get("result")).toList());
    assertNotEquals(stopped, reduceEnds.get(1).get("executor"), "rerun on another executor");
    System.out.printf("stopped executor %s (pid %d): %s; job finished in %d ms%n", stopped, pid,
        removed.get("reason"), run.wallMillis());
  }

  /** The pid of the application's executor JVM with this id, from /proc (as cluster/chaos.py). */
  private static long executorPid(String appId, String executorId) throws Exception {
    try (var procs = java.nio.file.Files.list(java.nio.file.Path.of("/proc"))) {
      for (java.nio.file.Path proc : (Iterable<java.nio.file.Path>) procs::iterator) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        List<String> args;
        try {
          args = List.of(new String(java.nio.file.Files.readAllBytes(proc.resolve("cmdline")),
              StandardCharsets.UTF_8).split("\0"));
        } catch (java.io.IOException gone) {
          continue;
        }
        int id = args.indexOf("--executor-id");
        int app = args.indexOf("--app-id");
        if (args.contains("dev.tide.executor.ExecutorMain") && id >= 0 && app >= 0
            && id + 1 < args.size() && app + 1 < args.size()
            && args.get(id + 1).equals(executorId) && args.get(app + 1).equals(appId)) {
          return Long.parseLong(name);
        }
      }
    }
    throw new AssertionError("no JVM of executor " + executorId + " of " + appId + " in /proc");
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
        .redirectErrorStream(true).start();
    kill.getInputStream().readAllBytes(); // "No such process" once YARN has killed it
    kill.waitFor(10, TimeUnit.SECONDS);
  }

  /**
   * Map outputs that vanish every time (a cleaner deleting them before the reduce fetches):
   * each round of map reruns fails its fetch again, and after tide.stage.maxConsecutiveAttempts
   * rounds the job fails saying so, instead of rerunning the maps up to 4 x maps times.
   */
  @Test
  void fetchFailureRoundsBeyondTheBoundFailTheJobWithTheDiagnosis() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    conf.set("tide.stage.maxConsecutiveAttempts", "2");
    CompletableFuture<JobRun> job = submitAsync(conf, "sleep", "-m", "2", "-r", "1", "-mt",
        "100", "-rd", "3000", "-b", "16384", "-o", "/sleep-vanishing/out");
    FileSystem fs = cluster.fileSystem();
    String appId = awaitRunningApp(fs, "MAP", job);
    int deleted = 0;
    long deadline = System.currentTimeMillis() + 180_000;
    while (!job.isDone() && System.currentTimeMillis() < deadline) {
      deleted += deleteFromNodeManagers(appId, appDir -> List.of(
          ShuffleLayout.dataFile(appDir, 0, 0), ShuffleLayout.dataFile(appDir, 0, 1)));
      TimeUnit.MILLISECONDS.sleep(50); // polling interval of the "cleaner"
    }
    JobRun run = job.get(60, TimeUnit.SECONDS);
    assertNotEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("could not fetch its input in 3 consecutive rounds of map"
        + " reruns (tide.stage.maxConsecutiveAttempts = 2)"), run.output());
    List<EventLine> events = run.events(fs, EVENTS);
    long mapRuns = JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("kind")
        .equals("MAP") && e.get("result").equals("SUCCEEDED")).count();
    assertTrue(mapRuns >= 2 + 2 && mapRuns <= 2 * 3, "the 2 maps ran once and were rerun in"
        + " 2 rounds, no more: " + mapRuns + " map runs (deleted " + deleted + " data files)");
  }

  /** Submits on another thread, so the test can act on the cluster while the job runs. */
  private static CompletableFuture<JobRun> submitAsync(Configuration conf, String... args) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(conf, System.out, args);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /**
   * Deletes, in the application's dir under every local dir of every NodeManager, the files
   * {@code files} names there (as a failed disk or a cleaner would); returns how many existed.
   */
  private static int deleteFromNodeManagers(String appId,
      java.util.function.Function<java.nio.file.Path, List<java.nio.file.Path>> files)
      throws java.io.IOException {
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    int deleted = 0;
    for (int i = 0; i < 3; i++) {
      NodeManager nm = cluster.yarn().getNodeManager(i);
      for (String dir : nm.getConfig().getTrimmedStrings("yarn.nodemanager.local-dirs")) {
        java.nio.file.Path appDir = ShuffleLayout.appLocalDir(java.nio.file.Path.of(dir), user,
            appId);
        for (java.nio.file.Path file : files.apply(appDir)) {
          if (java.nio.file.Files.deleteIfExists(file)) {
            deleted++;
          }
        }
      }
    }
    return deleted;
  }

  /** Waits (90 s at most) for the running application to start a task of this kind. */
  private static String awaitRunningApp(FileSystem fs, String kind,
      CompletableFuture<JobRun> job) throws Exception {
    return Await.value(Duration.ofSeconds(90), "a running application to start a " + kind
        + " task", () -> {
          String appId = runningApp(fs, kind);
          if (appId == null && job.isDone()) {
            throw new AssertionError("no running application started a " + kind
                + " task (the job ended: " + job.get().output() + ")");
          }
          return appId;
        });
  }

  /** The id of a running sleep application that has started a task of this kind, or null. */
  private static String runningApp(FileSystem fs, String kind) throws Exception {
    for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
      if (JobRun.named(events, EventName.TASK_START).stream().anyMatch(e -> e.get("kind").equals(kind))) {
        return JobRun.appId(events);
      }
    }
    return null;
  }

  /** A container whose executor has started a task, from the live event log, or null. */
  private static String runningExecutorContainer(FileSystem fs) throws Exception {
    for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
      if (JobRun.named(events, EventName.JOB_START).stream().noneMatch(e -> e.get("job").equals("sleep"))) {
        continue;
      }
      Set<String> busy = new HashSet<>();
      JobRun.named(events, EventName.TASK_START).forEach(e -> busy.add(e.get("executor")));
      for (EventLine launched : JobRun.named(events, EventName.EXECUTOR_LAUNCHED)) {
        if (busy.contains(launched.get("executor"))) {
          return launched.get("container");
        }
      }
    }
    return null;
  }

  /**
   * What an admin installs and a user runs: the shaded lib/tide-app.jar, launched the way
   * {@code yarn jar} does (a JVM with the jar and Hadoop's classpath), staging the jar for the AM
   * and executors, whose classpath is the staged jar plus {@code yarn.application.classpath}.
   */
  /**
   * The command {@code yarn jar lib/tide-app.jar <args>} amounts to: a JVM with the shaded app jar
   * and Hadoop's classpath running the client; the AM and executors get the staged jar plus
   * {@code yarn.application.classpath}.
   */
  private static List<String> yarnJarCommand(String... args) throws Exception {
    java.nio.file.Path appJar;
    try (var jars = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("..", "am",
        "target"), "tide-am-*-app.jar")) {
      appJar = jars.iterator().next().toAbsolutePath();
    }
    // Hadoop's own jars, as the cluster has them: everything on our classpath except Tide.
    List<String> hadoopClasspath = new java.util.ArrayList<>();
    hadoopClasspath.add(cluster.confDir().toString());
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (entry.endsWith(".jar") && !entry.contains("tide-") && !entry.contains("/dev/tide/")) {
        hadoopClasspath.add(entry);
      }
    }
    java.nio.file.Files.copy(java.nio.file.Path.of("target", "classes", "log4j.properties"),
        cluster.confDir().resolve("log4j.properties"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    List<String> command = new java.util.ArrayList<>(List.of(
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", appJar + java.io.File.pathSeparator
            + String.join(java.io.File.pathSeparator, hadoopClasspath),
        "dev.tide.am.client.TideClient",
        "-D", "yarn.application.classpath=" + String.join(",", hadoopClasspath),
        "-D", "tide.yarn.container.javaHome=" + System.getProperty("java.home"),
        "-D", "tide.eventLog.dir=" + EVENTS));
    for (String key : List.of("tide.am.memory", "tide.am.memoryOverhead", "tide.executor.memory",
        "tide.executor.memoryOverhead", "tide.client.pollInterval")) {
      command.add("-D");
      command.add(key + "=" + cluster.clientConf().get(key));
    }
    command.addAll(List.of(args));
    return command;
  }

  @Test
  void shippedAppJarRunsAJobAsYarnJarWould() throws Exception {
    Process client = new ProcessBuilder(yarnJarCommand("sleep", "-m", "4", "-r", "2", "-mt",
        "200", "-b", "8192", "-o", "/shipped/out",
        "-D", "tide.dynamicAllocation.initialExecutors=2",
        "-D", "tide.dynamicAllocation.maxExecutors=2"))
        .redirectErrorStream(true).start();
    String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(client.waitFor(120, TimeUnit.SECONDS));
    System.out.println(output);
    assertEquals(0, client.exitValue(), output);
    // Without the trailing -D options the first target would be 1 (no initial executors) and
    // 4 map tasks could raise it to 3; with them it starts at 2 and never goes above.
    java.util.regex.Matcher targets = java.util.regex.Pattern.compile("\\(target (\\d+)\\)")
        .matcher(output);
    List<Integer> nonZero = new java.util.ArrayList<>();
    while (targets.find()) {
      if (!targets.group(1).equals("0")) {
        nonZero.add(Integer.parseInt(targets.group(1)));
      }
    }
    assertFalse(nonZero.isEmpty(), output);
    assertEquals(2, nonZero.get(0), "-D after the job args applies: initial executors 2");
    int maxTarget = java.util.Collections.max(nonZero);
    assertEquals(2, maxTarget, "-D after the job args applies: the target peaks at 2");
    FileSystem fs = cluster.fileSystem();
    assertTrue(readAll(fs, "/shipped/out/part-r-00001").startsWith("partition 1 records 16 "));
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    java.util.regex.Matcher submitted = java.util.regex.Pattern.compile(
        "Submitted (application_\\d+_\\d+)").matcher(output);
    assertTrue(submitted.find(), output);
    // Its own directory: other test classes' applications share the cluster.
    org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path("/user/" + user
        + "/.tide-staging/" + submitted.group(1));
    // The AM deletes its staging directory as it ends, just after the client saw it finish.
    Await.until(Duration.ofSeconds(30), "the AM removed the application's staging directory",
        () -> !fs.exists(staging));
  }

  /**
   * Ctrl-C in the terminal (SIGINT to the client's JVM) kills the application within seconds.
   * The client is started with SIGINT's default action restored ({@code env
   * --default-signal=INT}): a JVM that inherits SIGINT ignored (as every process started in the
   * background by a non-interactive shell, such as a {@code mvn verify &} in a script, and its
   * children) never runs its shutdown hooks on SIGINT, and this test then waited forever on a
   * client that kept running. Every wait here has a deadline.
   */
  @Test
  void ctrlCInTheClientKillsTheApplication() throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("env", "--default-signal=INT"));
    command.addAll(yarnJarCommand("sleep", "-m", "2", "-mt", "600000"));
    Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      try (java.io.BufferedReader in = new java.io.BufferedReader(new InputStreamReader(
          client.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        // the client is gone
      }
    }, "ctrl-c-client-output");
    reader.setDaemon(true);
    reader.start();
    try {
      String running = "application_\\d+_\\d+ RUNNING .*executors [1-9].*";
      awaitTrue(() -> lines.stream().anyMatch(l -> l.matches(running)) || !client.isAlive(),
          120, () -> "the job started running executors: " + lines);
      assertTrue(client.isAlive(), String.join("\n", lines));
      assertFalse(signalIgnored(client.pid(), 2), "SIGINT is ignored by the client's JVM");
      ApplicationId appId = ApplicationId.fromString(lines.stream()
          .filter(l -> l.matches(running)).findFirst().orElseThrow().split(" ")[0]);

      long interrupted = System.nanoTime();
      new ProcessBuilder("kill", "-INT", Long.toString(client.pid())).start().waitFor();
      awaitTrue(() -> appState(appId)
          == org.apache.hadoop.yarn.api.records.YarnApplicationState.KILLED, 30,
          () -> "the application was killed within 30 s of SIGINT: " + lines);
      long killedAfter = (System.nanoTime() - interrupted) / 1_000_000;
      assertTrue(client.waitFor(30, TimeUnit.SECONDS), "the client ended: " + lines);
      assertNotEquals(0, client.exitValue());
      reader.join(10_000);
      assertTrue(lines.contains("Interrupted: killing " + appId), String.join("\n", lines));
      System.out.printf("Ctrl-C: %s KILLED %d ms after SIGINT%n", appId, killedAfter);
    } finally {
      client.destroyForcibly();
    }
  }

  /** True when the process ignores signal {@code number} (its SigIgn mask in /proc). */
  private static boolean signalIgnored(long pid, int number) throws java.io.IOException {
    for (String line : java.nio.file.Files.readAllLines(Path.of("/proc", Long.toString(pid),
        "status"))) {
      if (line.startsWith("SigIgn:")) {
        long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
        return (mask & (1L << (number - 1))) != 0;
      }
    }
    throw new AssertionError("no SigIgn in /proc/" + pid + "/status");
  }

  private static org.apache.hadoop.yarn.api.records.YarnApplicationState appState(
      ApplicationId appId) {
    try {
      return cluster.yarnClient().getApplicationReport(appId).getYarnApplicationState();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, int seconds,
      java.util.function.Supplier<String> what) {
    Await.until(Duration.ofSeconds(seconds), what, condition::getAsBoolean);
  }

  @Test
  void failingJobExitsNonZeroWithTheCauseInTheDiagnostics() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.task.maxAttempts", "2");
    JobRun run = Submitter.run(conf, System.out, FailingJob.class.getName());
    assertNotEquals(0, run.exitCode());
    assertTrue(run.output().contains("deliberate failure in a user mapper"), run.output());
  }

  /**
   * Issue 37: an {@link Error} in the job's planning code (here the NoSuchMethodError of a
   * library clash) used to kill the driver's job thread silently; the application then stayed
   * RUNNING "planning the job" until killed by hand. It must fail at once, with the cause.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void anErrorInTheJobsPlanningFailsTheApplicationAtOnceWithItsCause() throws Exception {
    JobRun run = Submitter.run(jobConf(), System.out, PlanningErrorJob.class.getName());

    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.output().contains("failed in its driver code: java.lang.NoSuchMethodError: "
        + PlanningErrorJob.MISSING), run.output());
    assertTrue(run.output().contains("final status FAILED"), run.output());
  }

  /**
   * Issue 37 item 5: a mapper that calls {@code System.exit(0)} used to end its executor with
   * status 0, which counted as an executor failure against the node; the task was rerun on a
   * new executor until the executor failures ran out, and the job failed naming neither the task
   * nor the exit. Now each exit fails its task attempt, naming it and the call, and counts as
   * no failure of the node (one failure per node would exclude it here).
   */
  @Test
  void systemExitInAMapperFailsTheTaskNamingItAndSparesTheNode() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.task.maxAttempts", "2");
    conf.set("tide.yarn.maxFailuresPerHost", "1");
    conf.set("tide.executor.maxFailures", "10");
    conf.set("tide.dynamicAllocation.maxExecutors", "1");

    JobRun run = Submitter.run(conf, System.out, ExitingJob.class.getName());

    assertNotEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("task map 0 failed 2 times"), run.output());
    assertTrue(run.output().contains("user code called System.exit"), run.output());
    assertTrue(run.output().contains("ExitingJob$ExitingMapper.map("), run.output());
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    assertEquals(List.of(), JobRun.named(events, EventName.NODE_EXCLUDED));
    List<EventLine> failed = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> "FAILED".equals(e.get("result"))).toList();
    assertEquals(2, failed.size(), events.toString());
    // The first executor's end is classified before its replacement is asked for.
    List<EventLine> executorEnds = JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> !"".equals(e.get("executor")) && "true".equals(e.get("failure"))).toList();
    assertFalse(executorEnds.isEmpty(), events.toString());
    for (EventLine end : executorEnds) {
      assertTrue(end.get("diagnostics").contains("status 58: user code called System.exit"),
          end.toString());
    }
    System.out.printf("System.exit in a mapper: the job failed %d ms after submission%n",
        run.wallMillis());
  }

  /**
   * Issue 15: an exception in the AM's allocator thread used to end the thread silently; the job
   * then waited with no allocator until the RM expired the AM (10 min by default). Here the
   * job's own rack mapping fails when the allocator resolves its first container's node: the
   * application must fail at once, with that exception in its diagnostics.
   */
  @Test
  void anAllocatorFailureFailsTheApplicationAtOnceWithItsCause() throws Exception {
    Configuration conf = jobConf();
    conf.set("net.topology.node.switch.mapping.impl", BrokenRackMapping.class.getName());
    conf.set("tide.dynamicAllocation.maxExecutors", "1");

    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "1", "-r", "1", "-mt", "100",
        "-rt", "100", "-o", "/sleep-broken-racks/out");

    assertNotEquals(0, run.exitCode(), run.output());
    String cause = "the YARN allocator failed: java.lang.IllegalStateException: rack mapping"
        + " broken by the test for [";
    assertTrue(run.output().contains(cause), run.output());
    ApplicationReport report = cluster.yarnClient().getApplicationReport(
        ApplicationId.fromString(run.appId()));
    assertEquals(FinalApplicationStatus.FAILED, report.getFinalApplicationStatus());
    assertTrue(report.getDiagnostics().contains(cause), report.getDiagnostics());
    assertTrue(report.getDiagnostics().contains("(at dev.tide.it.BrokenRackMapping.resolve("),
        report.getDiagnostics());
    // A small application takes 2-3 s from submit to its end; the AM's expiry 10 min.
    assertTrue(run.wallMillis() < 60_000, "ended after " + run.wallMillis() + " ms");
    System.out.printf("allocator failure: application failed %d ms after submission%n",
        run.wallMillis());
  }

  @Test
  void unknownJobExitsNonZeroAndSaysWhy() throws Exception {
    JobRun run = Submitter.run(jobConf(), System.out, "no.such.JobClass");
    assertNotEquals(0, run.exitCode());
    assertTrue(run.output().contains("no.such.JobClass"), run.output());
  }

  @Test
  void nodeManagersShuffleServiceRefusesWrongSecretsAndOtherApplicationsData() throws Exception {
    NodeManager nm = cluster.yarn().getNodeManager(0);
    AuxServices aux = nm.getNMContext().getAuxServices();
    int port = ShuffleServiceMetadata.decodePort(
        aux.getMetaData().get(ShuffleServiceMetadata.SERVICE_NAME));
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    ApplicationId appA = ApplicationId.newInstance(4242, 1);
    ApplicationId appB = ApplicationId.newInstance(4242, 2);
    byte[] secretA = "secret-of-application-a-32-bytes".getBytes(StandardCharsets.UTF_8);
    byte[] secretB = "secret-of-application-b-32-bytes".getBytes(StandardCharsets.UTF_8);
    // Exactly what the NodeManager does when a container's launch context carries service data.
    for (ApplicationId app : List.of(appA, appB)) {
      aux.handle(new AuxServicesEvent(AuxServicesEventType.APPLICATION_INIT, user, app,
          ShuffleServiceMetadata.SERVICE_NAME,
          ByteBuffer.wrap(app.equals(appA) ? secretA : secretB)));
    }
    String nmLocalDir = nm.getConfig().getTrimmedStrings("yarn.nodemanager.local-dirs")[0];
    java.nio.file.Path appDirB = ShuffleLayout.appLocalDir(java.nio.file.Path.of(nmLocalDir),
        user, appB.toString());
    java.nio.file.Path temp = MapOutputCommitter.tempDataFile(appDirB, 0, 0, 1);
    java.nio.file.Files.write(temp, "segment-0segment-1".getBytes(StandardCharsets.UTF_8));
    assertTrue(MapOutputCommitter.commit(appDirB, 0, 0, temp, new long[] {9, 9}));
    List<BlockId> blocksOfB = List.of(BlockId.of(0, 0, 1));
    try {
      try (ShuffleClient owner = new ShuffleClient(appB.toString(), secretB)) {
        assertEquals("segment-1", new String(owner.fetch("localhost", port, blocksOfB).get(0),
            StandardCharsets.UTF_8));
      }
      try (ShuffleClient wrongSecret = new ShuffleClient(appB.toString(), secretA)) {
        ShuffleFetchException e = org.junit.jupiter.api.Assertions.assertThrows(
            ShuffleFetchException.class, () -> wrongSecret.fetch("localhost", port, blocksOfB));
        assertEquals(ShuffleFetchException.Reason.AUTH, e.reason(), e.getMessage());
      }
      try (ShuffleClient otherApp = new ShuffleClient(appA.toString(), secretA)) {
        ShuffleFetchException e = org.junit.jupiter.api.Assertions.assertThrows(
            ShuffleFetchException.class, () -> otherApp.fetch("localhost", port, blocksOfB));
        assertEquals(ShuffleFetchException.Reason.NOT_FOUND, e.reason(),
            "application A sees nothing of B's map output: " + e.getMessage());
      }
      aux.handle(new AuxServicesEvent(AuxServicesEventType.APPLICATION_STOP, appB));
      try (ShuffleClient stopped = new ShuffleClient(appB.toString(), secretB)) {
        ShuffleFetchException e = org.junit.jupiter.api.Assertions.assertThrows(
            ShuffleFetchException.class, () -> stopped.fetch("localhost", port, blocksOfB));
        assertEquals(ShuffleFetchException.Reason.AUTH, e.reason(), e.getMessage());
      }
    } finally {
      aux.handle(new AuxServicesEvent(AuxServicesEventType.APPLICATION_STOP, appA));
    }
  }

  private static String readAll(FileSystem fs, String path) throws Exception {
    try (var in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
