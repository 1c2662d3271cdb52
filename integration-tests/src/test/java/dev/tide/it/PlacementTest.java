package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.it.placement.ConstrainedCluster;
import dev.tide.it.placement.PreferredNodeJob;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where executors land and what happens when they cannot start, on a MiniYARNCluster with 3
 * NodeManagers (distinct node names host:port) whose CapacityScheduler handles placement
 * constraints: DESIGN.md "Placement" and "Container outcome", as a user sees them in the event
 * log and the client's output.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PlacementTest {
  private static final String EVENTS = "/tide-events";
  private static ConstrainedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    // Per-JVM names: concurrent builds in one checkout must not share the cluster's files (the
    // containers' yarn-site.xml names this cluster's RM).
    long pid = ProcessHandle.current().pid();
    SharedCluster.stop(); // this class starts a cluster of its own
    cluster = ConstrainedCluster.start("tide-placement-" + pid, 3,
        Path.of("target", "placement-cluster-" + pid));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Configuration jobConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "30s");
    return conf;
  }

  private static List<String> executorNodes(JobRun run) throws Exception {
    return JobRun.named(run.events(cluster.fileSystem(), EVENTS), EventName.EXECUTOR_LAUNCHED).stream()
        .map(e -> e.get("node")).collect(Collectors.toList());
  }

  @Test
  void spreadPutsOneExecutorOnEachNode() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.yarn.placement", "spread");
    conf.set("tide.dynamicAllocation.initialExecutors", "3");
    conf.set("tide.dynamicAllocation.maxExecutors", "3");

    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "6", "-r", "1", "-mt", "1500",
        "-rt", "0");

    assertEquals(0, run.exitCode(), run.output());
    List<String> nodes = executorNodes(run);
    assertEquals(3, nodes.size(), "executors launched on " + nodes);
    assertEquals(new TreeSet<>(cluster.nodeNames()), new TreeSet<>(nodes),
        "one executor on each NodeManager");
  }

  @Test
  void packPutsEveryExecutorOnOneNode() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.yarn.placement", "pack");
    conf.set("tide.dynamicAllocation.initialExecutors", "3");
    conf.set("tide.dynamicAllocation.maxExecutors", "3");

    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "6", "-r", "1", "-mt", "1500",
        "-rt", "0");

    assertEquals(0, run.exitCode(), run.output());
    List<String> nodes = executorNodes(run);
    assertEquals(3, nodes.size(), "executors launched on " + nodes);
    assertEquals(1, Set.copyOf(nodes).size(), "all executors on one node: " + nodes);
  }

  @Test
  void executorsGoWhereThePendingTasksPreferToRun() throws Exception {
    List<String> all = cluster.nodeNames();
    String preferred = all.get(all.size() - 1);
    Configuration conf = jobConf();
    // No initial executors: those would be asked for before the first stage gives hints.
    conf.set("tide.dynamicAllocation.initialExecutors", "0");
    conf.set("tide.dynamicAllocation.maxExecutors", "3");

    JobRun run = Submitter.run(conf, System.out, PreferredNodeJob.class.getName(), preferred,
        "6", "1500");

    assertEquals(0, run.exitCode(), run.output());
    List<String> nodes = executorNodes(run);
    long there = nodes.stream().filter(preferred::equals).count();
    // Every request names the preferred node; the scheduler still gives a container to another
    // node of the rack when the preferred node misses more than 3 scheduling opportunities
    // (its heartbeat late on a loaded machine): a strict majority is what the test relies on.
    assertTrue(there * 2 > nodes.size(), "executors on " + nodes + ", most of them on "
        + preferred + " where all tasks prefer to run (nodes " + all + ")");
  }

  @Test
  void executorsThatCannotStartFailTheApplicationWithTheCause() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.executor.javaOpts", "-XX:+TideNoSuchJvmFlag");
    conf.set("tide.executor.maxFailures", "2");
    conf.set("tide.dynamicAllocation.initialExecutors", "1");
    conf.set("tide.dynamicAllocation.maxExecutors", "1");

    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "1", "-r", "1");

    assertNotEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("tide.executor.maxFailures = 2"), run.output());
    assertTrue(run.output().contains("executor exited with status 1"), run.output());
    assertTrue(run.output().contains("Unrecognized VM option 'TideNoSuchJvmFlag'"),
        "the executor's own error reaches the user: " + run.output());
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    long failures = JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> e.get("failure").equals("true")).count();
    assertEquals(3, failures, "more than tide.executor.maxFailures = 2 ended the application");
  }
}
