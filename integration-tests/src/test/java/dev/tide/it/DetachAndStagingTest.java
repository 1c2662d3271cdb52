package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.AmOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.testing.Await;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.SignalContainerCommand;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The application outlives its client: with {@code --detach} the client returns once the
 * application runs, and a client killed with SIGKILL mid-run leaves it running; either way the
 * job finishes and its AM deletes the staging directory. The client deletes it itself only for
 * an application whose AM never ran.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DetachAndStagingTest {
  private static final Pattern SUBMITTED = Pattern.compile("Submitted (application_\\d+_\\d+)");
  private static final String[] SLEEP_JOB = {"sleep", "-m", "4", "-r", "1", "-mt", "1500",
      "-rt", "100"};

  private static final String EVENTS = "/tide-events";

  private static EmbeddedCluster cluster;
  private static YarnClient yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    SharedCluster.stop(); // this class starts a cluster of its own
    // SIGTERM's cleanup (a few HDFS calls) must fit before the NodeManager's SIGKILL: YARN's
    // default 250 ms between them was once too short on a 2-core machine running two test JVMs.
    // The tests assert what the AM does in the time given, not how fast it is.
    cluster = EmbeddedCluster.start("tide-detach", 2, Path.of("target", "detach-cluster"),
        conf -> conf.setInt("yarn.nodemanager.sleep-delay-before-sigkill.ms", 2_000));
    yarn = cluster.yarnClient();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void detachedClientReturnsWhileTheApplicationRuns() throws Exception {
    List<String> args = new ArrayList<>(List.of("--detach"));
    args.addAll(List.of(SLEEP_JOB));
    Configuration conf = cluster.clientConf();
    conf.set("tide.app.tags", "nightly,team-a");
    JobRun run = Submitter.run(conf, System.out, args.toArray(new String[0]));

    assertEquals(0, run.exitCode(), run.output());
    ApplicationId appId = ApplicationId.fromString(run.appId());
    assertEquals(YarnApplicationState.RUNNING,
        yarn.getApplicationReport(appId).getYarnApplicationState(), "still running");
    assertTrue(run.output().contains(appId + " tracking URL: http"), run.output());
    assertTrue(run.output().contains(appId + " is running; the client detaches."), run.output());
    assertTrue(run.output().contains("yarn application -status " + appId), run.output());
    assertTrue(run.output().contains("yarn logs -applicationId " + appId), run.output());
    assertTrue(stagingExists(appId), "the AM still needs its staging directory");
    assertEquals(java.util.Set.of("nightly", "team-a"),
        yarn.getApplicationReport(appId).getApplicationTags());

    assertSucceededAndStagingDeleted(appId);
  }

  @Test
  void applicationFinishesAfterItsClientIsKilled() throws Exception {
    Process client = startClientProcess(SLEEP_JOB);
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread reader = readLines(client, lines);
    try {
      waitFor(() -> lines.stream().anyMatch(l -> l.matches("application_\\S+ RUNNING")),
          90, "the client saw the application RUNNING: " + lines);
      ApplicationId appId = submittedId(lines);
      assertTrue(stagingExists(appId));

      client.destroyForcibly(); // SIGKILL: no shutdown hook runs
      assertEquals(137, client.waitFor(), "killed by SIGKILL");
      assertFalse(isEnded(appId), "the application still runs without its client");

      assertSucceededAndStagingDeleted(appId);
    } finally {
      client.destroyForcibly();
      reader.join(10_000);
    }
  }

  @Test
  void clientDeletesTheStagingDirOfAnApplicationThatNeverStarted() throws Exception {
    Configuration conf = cluster.clientConf();
    conf.set("tide.queue", "no-such-queue");

    JobRun run = Submitter.run(conf, System.out, SLEEP_JOB);

    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.output().contains("tide: YARN refused " + run.appId()), run.output());
    assertTrue(run.output().contains("unknown queue: no-such-queue"), run.output());
    assertFalse(stagingExists(ApplicationId.fromString(run.appId())),
        "deleted by the client before it returned");
  }

  /**
   * Issue 37 item 3: {@code yarn application -kill} (here {@code YarnClient.killApplication})
   * sends the AM SIGTERM; it must end its event log with {@code jobEnd} state killed, delete the
   * output its job created ({@code _temporary/} with it) and delete the staging directory before
   * the NodeManager's SIGKILL follows.
   */
  @Test
  void aKilledApplicationLeavesNoDebrisAndEndsItsEventLogKilled() throws Exception {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    String output = "/killed/out";
    JobRun run = Submitter.run(conf, System.out, "--detach", "sleep", "-m", "2", "-r", "1",
        "-mt", "600000", "-o", output);
    assertEquals(0, run.exitCode(), run.output());
    ApplicationId appId = ApplicationId.fromString(run.appId());
    FileSystem fs = cluster.fileSystem();
    waitFor(() -> eventLogHas(fs, appId, "taskStart"), 90, "a task of " + appId + " started");
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path(output, "_temporary")));
    // The AM's log is deleted as the application ends: opened now, it can be read afterwards.
    java.io.InputStream amLog = amStderr(appId);

    yarn.killApplication(appId);

    try {
      waitFor(() -> isEnded(appId), 60, appId + " ended");
      waitFor(() -> eventLogHas(fs, appId, "jobEnd"), 30,
          "the event log of the killed " + appId + " ends with jobEnd");
      EventLine end = lastEvent(fs, appId);
      assertEquals("jobEnd", end.event());
      assertEquals("killed", end.get("state"), end.toString());
      assertEquals("false", end.get("succeeded"), end.toString());
      waitFor(() -> !exists(fs, new org.apache.hadoop.fs.Path(output)), 30,
          "the killed job's partial output (and its _temporary/) is deleted");
      waitFor(() -> !stagingExists(appId), 30, "the killed AM deleted its staging directory");
    } finally {
      try (amLog) {
        // What the AM did between SIGTERM and the NodeManager's SIGKILL (2 s later).
        new String(amLog.readAllBytes(), StandardCharsets.UTF_8).lines()
            .filter(l -> l.contains("SIGTERM") || l.contains("shutdown-hook")
                || l.contains("[main] ApplicationMaster") || l.contains("taging"))
            .forEach(l -> System.out.println("[AM] " + l));
      }
    }
  }

  /** The stderr (log) of the application's AM container, opened for reading. */
  private static java.io.InputStream amStderr(ApplicationId appId) throws Exception {
    ContainerId am = yarn.getApplicationAttemptReport(
        yarn.getApplicationReport(appId).getCurrentApplicationAttemptId()).getAMContainerId();
    for (int i = 0; i < 2; i++) { // the class's cluster has 2 NodeManagers
      for (String dir : cluster.yarn().getNodeManager(i).getConfig()
          .getTrimmedStrings("yarn.nodemanager.log-dirs")) {
        Path stderr = Path.of(dir, appId.toString(), am.toString(), "stderr");
        if (Files.exists(stderr)) {
          return Files.newInputStream(stderr);
        }
      }
    }
    throw new AssertionError("no log of the AM container " + am);
  }

  /**
   * Issue 37 item 3: an AM killed with SIGKILL on its only attempt cleans nothing; the next
   * submission to the same output removes that debris (the dead application's {@code
   * _temporary/}, with a task's part file in it, and its staging directory) and succeeds.
   */
  @Test
  void aRerunToTheOutputOfAnAmKilledBySigkillSucceeds() throws Exception {
    Configuration conf = cluster.clientConf();
    String output = "/sigkilled/out";
    conf.set("tide.dynamicAllocation.maxExecutors", "1");
    JobRun run = Submitter.run(conf, System.out, "--detach", "sleep", "-m", "1", "-r", "2",
        "-mt", "100", "-rt", "5000", "-o", output);
    assertEquals(0, run.exitCode(), run.output());
    ApplicationId dead = ApplicationId.fromString(run.appId());
    FileSystem fs = cluster.fileSystem();
    org.apache.hadoop.fs.Path committedTask = new org.apache.hadoop.fs.Path(output,
        "_temporary/task_00000/part-r-00000");
    waitFor(() -> exists(fs, committedTask), 90, "the first reduce task of " + dead
        + " committed " + committedTask);

    ContainerId am = yarn.getApplicationAttemptReport(
        yarn.getApplicationReport(dead).getCurrentApplicationAttemptId()).getAMContainerId();
    yarn.signalToContainer(am, SignalContainerCommand.FORCEFUL_SHUTDOWN); // SIGKILL
    waitFor(() -> isEnded(dead), 60, dead + " ended after its AM was killed");
    assertTrue(exists(fs, committedTask), "a SIGKILLed AM cleans nothing up");
    assertTrue(stagingExists(dead), "a SIGKILLed AM cleans nothing up");

    JobRun rerun = Submitter.run(cluster.clientConf(), System.out, "sleep", "-m", "1", "-r", "2",
        "-mt", "100", "-rt", "100", "-o", output);

    assertEquals(0, rerun.exitCode(), rerun.output());
    assertTrue(exists(fs, new org.apache.hadoop.fs.Path(output, "_SUCCESS")));
    assertFalse(exists(fs, new org.apache.hadoop.fs.Path(output, "_temporary")));
    assertFalse(stagingExists(dead), "the next submission deleted the staging directory of the"
        + " dead " + dead);
  }

  /**
   * Issue 37 item 3: a client stopped with SIGTERM kills its application and deletes the staging
   * directory; its cleanup ran in a JVM shutdown hook of its own and lost the race with Hadoop's
   * hook that closes the cached FileSystems ("Cannot delete staging directory ... Filesystem
   * closed").
   */
  @Test
  void aClientStoppedWithSigtermKillsTheApplicationAndDeletesItsStaging() throws Exception {
    Process client = startClientProcess("sleep", "-m", "2", "-mt", "600000");
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread reader = readLines(client, lines);
    try {
      waitFor(() -> lines.stream().anyMatch(
          l -> l.matches("application_\\S+ RUNNING .*executors [1-9].*")), 90,
          "the client saw executors running: " + lines);
      ApplicationId appId = submittedId(lines);

      // Not Process.destroy(): it sends SIGTERM but also closes the pipe of the client's output.
      new ProcessBuilder("kill", "-TERM", Long.toString(client.pid())).start().waitFor();
      assertTrue(client.waitFor(60, TimeUnit.SECONDS), "the client ended: " + lines);
      reader.join(10_000);
      assertTrue(lines.contains("Interrupted: killing " + appId), String.join("\n", lines));
      assertTrue(lines.contains("Killed " + appId), String.join("\n", lines));

      assertEquals(YarnApplicationState.KILLED,
          yarn.getApplicationReport(appId).getYarnApplicationState(), String.join("\n", lines));
      assertFalse(String.join("\n", lines).contains("Filesystem closed"),
          String.join("\n", lines));
      assertFalse(stagingExists(appId), "staging deleted: " + String.join("\n", lines));
    } finally {
      client.destroyForcibly();
      reader.join(10_000);
    }
  }

  private static boolean exists(FileSystem fs, org.apache.hadoop.fs.Path path) {
    try {
      return fs.exists(path);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<EventLine> events(FileSystem fs, ApplicationId appId) throws IOException {
    org.apache.hadoop.fs.Path log = EventLog.pathFor(EVENTS, appId.toString());
    if (!fs.exists(log)) {
      return List.of();
    }
    try (java.io.InputStream in = fs.open(log)) {
      return EventLine.readAll(in);
    }
  }

  private static boolean eventLogHas(FileSystem fs, ApplicationId appId, String event) {
    try {
      return events(fs, appId).stream().anyMatch(e -> e.event().equals(event));
    } catch (IOException | IllegalArgumentException e) {
      return false; // not written yet, or a line still being written
    }
  }

  private static EventLine lastEvent(FileSystem fs, ApplicationId appId) throws IOException {
    List<EventLine> events = events(fs, appId);
    return events.get(events.size() - 1);
  }

  private static void assertSucceededAndStagingDeleted(ApplicationId appId) throws Exception {
    waitFor(() -> isEnded(appId), 120, appId + " ended");
    ApplicationReport report = yarn.getApplicationReport(appId);
    assertEquals(FinalApplicationStatus.SUCCEEDED, report.getFinalApplicationStatus(),
        report.getDiagnostics());
    // The AM deletes it after unregistering, so just after the RM reports the end.
    waitFor(() -> !stagingExists(appId), 30, "the AM deleted the staging directory of "
        + appId);
  }

  private static boolean isEnded(ApplicationId appId) {
    try {
      YarnApplicationState state = yarn.getApplicationReport(appId).getYarnApplicationState();
      return state == YarnApplicationState.FINISHED || state == YarnApplicationState.FAILED
          || state == YarnApplicationState.KILLED;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean stagingExists(ApplicationId appId) {
    try {
      FileSystem fs = cluster.fileSystem();
      Configuration conf = cluster.clientConf();
      return fs.exists(new org.apache.hadoop.fs.Path(AmOptions.stagingDir(conf, fs),
          appId.toString()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The real client in a JVM of its own, configured as a user's would be: the cluster's
   * settings in a {@code tide-site.xml} first on its classpath.
   */
  private static Process startClientProcess(String... args) throws IOException {
    Path confDir = Files.createDirectories(Path.of("target", "detach-client-conf"));
    try (OutputStream out = Files.newOutputStream(confDir.resolve("tide-site.xml"))) {
      cluster.clientConf().writeXml(out);
    }
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", confDir.toAbsolutePath() + File.pathSeparator + cluster.confDir().toAbsolutePath()
            + File.pathSeparator + System.getProperty("java.class.path"),
        "dev.tide.am.client.TideClient"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static Thread readLines(Process process, List<String> lines) {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
          System.out.println("[client] " + line);
        }
      } catch (IOException e) {
        // the process was killed
      }
    }, "client-output");
    reader.setDaemon(true);
    reader.start();
    return reader;
  }

  private static ApplicationId submittedId(List<String> lines) {
    for (String line : lines) {
      Matcher m = SUBMITTED.matcher(line);
      if (m.find()) {
        return ApplicationId.fromString(m.group(1));
      }
    }
    throw new AssertionError("no 'Submitted' line in " + lines);
  }

  private static void waitFor(BooleanSupplier condition, int seconds, String what) {
    Await.until(Duration.ofSeconds(seconds), what, condition::getAsBoolean);
  }
}
