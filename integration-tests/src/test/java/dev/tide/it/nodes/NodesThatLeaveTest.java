package dev.tide.it.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.driver.events.EventTimeline;
import dev.tide.it.EmbeddedCluster;
import dev.tide.it.JobRun;
import dev.tide.it.SharedCluster;
import dev.tide.it.Submitter;
import dev.tide.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNodeDecommissioningEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 36 on a MiniYARNCluster (see {@link NodesCluster}: queues a and b, preemption on, the
 * last of 3 NodeManagers labelled): executors asked for with a node label land only on the
 * labelled node; a second application in a queue under its guarantee makes YARN take resources
 * back, and Tide gives back idle executors, counts no failure and completes; a node being
 * decommissioned gets no new task and its executors leave once idle. The decommissioning runs
 * last: its node does not come back.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodesThatLeaveTest {
  private static final String EVENTS = "/tide-events-nodes";
  private static final int NODE_MANAGERS = 3;
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    long pid = ProcessHandle.current().pid();
    SharedCluster.stop(); // this class starts a cluster of its own
    cluster = NodesCluster.start("tide-nodes-" + pid, NODE_MANAGERS,
        Path.of("target", "nodes-cluster-" + pid));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Configuration jobConf(String queue) {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.queue", queue);
    return conf;
  }

  private static List<EventLine> events(JobRun run) throws Exception {
    return run.events(cluster.fileSystem(), EVENTS);
  }

  /** Executor id -> the RM's name of its node, from executorLaunched. */
  private static Map<String, String> executorNodes(List<EventLine> events) {
    Map<String, String> nodes = new HashMap<>();
    for (EventLine e : JobRun.named(events, EventName.EXECUTOR_LAUNCHED)) {
      nodes.put(e.get("executor"), e.get("node"));
    }
    return nodes;
  }

  @Test
  @Order(1)
  void executorsWithANodeLabelLandOnlyOnTheLabelledNode() throws Exception {
    Configuration conf = jobConf("a");
    conf.set("tide.executor.nodeLabelExpression", NodesCluster.LABEL);
    conf.set("tide.dynamicAllocation.initialExecutors", "2");
    conf.set("tide.dynamicAllocation.maxExecutors", "2");

    JobRun run = Submitter.run(conf, System.out, "sleep", "-m", "4", "-r", "1", "-mt", "300",
        "-rt", "0");

    assertEquals(0, run.exitCode(), run.output());
    Map<String, String> nodes = executorNodes(events(run));
    assertFalse(nodes.isEmpty(), "no executor launched");
    String tagged = NodesCluster.taggedNode(cluster, NODE_MANAGERS);
    assertEquals(List.of(tagged), nodes.values().stream().distinct().toList(),
        "every executor on the node labelled " + NodesCluster.LABEL);
  }

  /**
   * Queue a's job holds 6 executors (2 busy, 4 idle) and more than its half; queue b's job
   * then wants its guarantee: YARN asks a's application for resources back, and Tide gives back
   * idle executors; no executor failure, both jobs succeed.
   */
  @Test
  @Order(2)
  void preemptionTakesIdleExecutorsAndCountsNoFailure() throws Exception {
    Configuration big = jobConf("a");
    // 1024 MB containers: 6 of them and the AM (6.4 of the 8 GB of the two unlabelled
    // NodeManagers, 4 GB each in a MiniYARNCluster) hold more than a's half.
    big.set("tide.executor.memory", "896m");
    for (String key : List.of("initialExecutors", "minExecutors", "maxExecutors")) {
      big.set("tide.dynamicAllocation." + key, "6");
    }
    AtomicReference<JobRun> first = new AtomicReference<>();
    CompletableFuture<Void> firstDone = CompletableFuture.runAsync(() -> {
      try {
        first.set(Submitter.run(big, System.out, "sleep", "-m", "2", "-r", "1", "-mt", "25000",
            "-rt", "0"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Await.until(Duration.ofSeconds(60), "queue a's job runs 6 executors", () -> {
      for (List<EventLine> log : JobRun.runningEventLogs(cluster.fileSystem(), EVENTS)) {
        if (JobRun.named(log, EventName.EXECUTOR_ADDED).size() >= 6) {
          return true;
        }
      }
      return false;
    });

    Configuration small = jobConf("b");
    // 1152 MB containers: none fits in what a's job leaves free on either node.
    small.set("tide.executor.memory", "1024m");
    small.set("tide.dynamicAllocation.initialExecutors", "2");
    small.set("tide.dynamicAllocation.maxExecutors", "2");
    JobRun second = Submitter.run(small, System.out, "sleep", "-m", "2", "-r", "1", "-mt",
        "500", "-rt", "0");
    firstDone.get(90, TimeUnit.SECONDS);

    assertEquals(0, second.exitCode(), second.output());
    JobRun run = first.get();
    assertEquals(0, run.exitCode(), run.output());
    List<EventLine> events = events(run);
    System.out.println("Timeline of queue a's job:\n" + EventTimeline.render(events));
    assertFalse(JobRun.named(events, EventName.PREEMPTION_REQUESTED).isEmpty(),
        "YARN asked for resources back");
    List<EventLine> preempted = JobRun.named(events, EventName.EXECUTOR_PREEMPTED);
    assertTrue(preempted.stream().anyMatch(e -> e.get("how").equals("given back")
        && e.get("reason").equals("idle")), "an idle executor was given back: " + preempted);
    assertTrue(preempted.stream().filter(e -> e.get("how").equals("given back"))
        .allMatch(e -> e.get("reason").startsWith("idle")),
        "only idle executors given back (4 of 6 were idle): " + preempted);
    assertEquals(0, JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> e.get("failure").equals("true")).count(), "no executor failure");
    assertTrue(JobRun.named(events, EventName.TASK_END).stream()
        .noneMatch(e -> "FAILED".equals(e.get("result"))), "no task failed");
  }

  /**
   * A node with executors (not the AM's) is decommissioned gracefully with 30 s to go: it gets
   * no new task, its executors are removed once their running task is done, the job succeeds.
   * (The RM's own decommissioning event for that one node: the NodeManagers of a MiniYARNCluster
   * share one host name, so an exclude file would decommission all of them.)
   */
  @Test
  @Order(3)
  void aDecommissioningNodeGetsNoNewTaskAndTheJobSucceeds() throws Exception {
    Configuration conf = jobConf("a");
    conf.set("tide.dynamicAllocation.initialExecutors", "4");
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    AtomicReference<JobRun> result = new AtomicReference<>();
    CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
      try {
        result.set(Submitter.run(conf, System.out, "sleep", "-m", "12", "-r", "1", "-mt",
            "2000", "-rt", "0"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    AtomicReference<String> chosen = new AtomicReference<>();
    Await.until(Duration.ofSeconds(60), "an executor runs a task on a node without the AM",
        () -> {
          for (List<EventLine> log : JobRun.runningEventLogs(cluster.fileSystem(), EVENTS)) {
            String amNode = amNode(JobRun.appId(log));
            Map<String, String> nodes = executorNodes(log);
            for (EventLine start : JobRun.named(log, EventName.TASK_START)) {
              String node = nodes.get(start.get("executor"));
              if (node != null && !node.equals(amNode)) {
                chosen.set(node);
                return true;
              }
            }
          }
          return false;
        });
    NodeId leaving = NodeId.fromString(chosen.get());
    cluster.yarn().getResourceManager().getRMContext().getDispatcher().getEventHandler()
        .handle(new RMNodeDecommissioningEvent(leaving, 30));
    done.get(120, TimeUnit.SECONDS);

    JobRun run = result.get();
    assertEquals(0, run.exitCode(), run.output());
    List<EventLine> events = events(run);
    System.out.println("Timeline of the job with a decommissioned node:\n"
        + EventTimeline.render(events));
    List<EventLine> decommissioning = JobRun.named(events, EventName.NODE_DECOMMISSIONING);
    assertEquals(1, decommissioning.size(), "one nodeDecommissioning event");
    assertEquals(chosen.get(), decommissioning.get(0).get("node"));
    long at = decommissioning.get(0).timeMillis();
    Map<String, String> nodes = executorNodes(events);
    List<EventLine> laterStarts = JobRun.named(events, EventName.TASK_START).stream()
        .filter(e -> e.timeMillis() > at + 1000 && chosen.get().equals(nodes.get(
            e.get("executor")))).toList();
    // (1 s: the AM's heartbeat reads the node's state, the driver's loop acts on it.)
    assertEquals(List.of(), laterStarts, "no task starts on the leaving node");
    assertTrue(JobRun.named(events, EventName.EXECUTOR_IDLE_REMOVAL).stream().anyMatch(
        e -> e.get("reason").equals("node " + chosen.get() + " decommissioning")),
        "its executors removed, saying why");
    assertEquals(0, JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> e.get("failure").equals("true")).count(), "no executor failure");
  }

  /** The RM's name of the node running this application's AM, or "" while unknown. */
  private static String amNode(String appId) throws Exception {
    ApplicationId id = ApplicationId.fromString(appId);
    for (ApplicationAttemptReport attempt :
        cluster.yarnClient().getApplicationAttempts(id)) {
      if (attempt.getAMContainerId() != null) {
        return cluster.yarnClient().getContainerReport(attempt.getAMContainerId())
            .getAssignedNode().toString();
      }
    }
    return "";
  }
}
