package dev.tide.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.testing.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requirement 3 on a real cluster: after a work-preserving ResourceManager restart, an
 * application that already holds executors is Running, and the one that was Starting is still
 * the only one Starting.
 *
 * <p>One NodeManager of 1 GiB, one queue {@code drip} of all of it with the policy and a starting
 * timeout far longer than the test. The first application holds its AM and one executor
 * (512 MiB); the second holds its AM (256 MiB) and waits for a 512 MiB executor that does not
 * fit, so it is Starting. The RM restarts and recovers both from a {@link FileSystemRMStateStore}
 * in a temp directory; the NodeManager re-registers with the running containers. Then the first
 * application asks for one more executor: a Running application is served, while the second
 * still waits until the first finishes. What tells a Running first application from a Starting
 * one is the scheduler's phase counts ({@code getInfo()}, shown on the scheduler page): its new
 * executor alone would also be served if it wrongly counted as the oldest Starting application.
 *
 * <p>A restarted RM can only be reached again if it comes back on the same addresses: the cluster
 * uses fixed ports (free ones picked at start) and real RPC between NodeManager and RM, since the
 * in-process shortcut MiniYARNCluster uses otherwise keeps talking to the stopped RM.
 */
class DripFeedRecoveryMiniYarnTest {

  private static final String QUEUE = "drip";
  private static final String PREFIX = "yarn.scheduler.capacity.root.";
  private static final int NODE_MB = 1024;
  private static final int EXECUTOR_MB = 256;
  private static final int BIG_EXECUTOR_MB = 512;
  private static final long GIVE_UP_MILLIS = 120_000;
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);
  private static final String RUNNING_1_STARTING_1 = "Running 1, Starting 1, Accepted 0";

  private static Path stateStore;
  private static MiniYarnBurst yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    stateStore = Files.createTempDirectory("tide-queue-rm-state");
    Configuration conf = new Configuration(false);
    conf.set(PREFIX + "queues", QUEUE);
    conf.set(PREFIX + QUEUE + ".capacity", "100");
    conf.set(PREFIX + QUEUE + ".maximum-capacity", "100");
    conf.set(PREFIX + QUEUE + ".maximum-am-resource-percent", "1.0");
    conf.set(PREFIX + QUEUE + ".ordering-policy", DripFeedOrderingPolicy.class.getName());
    conf.set(PREFIX + QUEUE + ".ordering-policy.starting-timeout", "10m");

    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, FileSystemRMStateStore.class.getName());
    conf.set(YarnConfiguration.FS_RM_STATE_STORE_URI, stateStore.toUri().toString());
    // The RM waits this long after a restart before it allocates (default 10 s), so that
    // NodeManagers can re-register first.
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 2_000);
    // NodeManager, AMs and client retry the RM quickly while it is down (default every 30 s).
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 200);
    conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 120_000);
    conf.setInt("ipc.client.connect.max.retries", 2);
    conf.setInt("ipc.client.connect.retry.interval", 100);

    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
    String host = MiniYARNCluster.getHostname();
    for (String key : List.of(YarnConfiguration.RM_ADDRESS,
        YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
        YarnConfiguration.RM_ADMIN_ADDRESS)) {
      conf.set(key, host + ":" + freePort());
    }
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, host + ":0");
    yarn = new MiniYarnBurst("drip-feed-recovery", NODE_MB, conf);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    try {
      if (yarn != null) {
        yarn.close();
      }
    } finally {
      if (stateStore != null) {
        try (Stream<Path> files = Files.walk(stateStore)) {
          for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(file);
          }
        }
      }
    }
  }

  @Test
  void afterRmRestartTheApplicationWithExecutorsIsRunningAndTheStartingOneStillWaits()
      throws Exception {
    Path results = yarn.resultDir();
    ApplicationId first = yarn.submit(QUEUE, "holds-executors", Set.of(), GrowOnSignalAm.class,
        "1 1 " + EXECUTOR_MB + " 1000 " + GIVE_UP_MILLIS + " " + results);
    await("the first application holds its executor", () -> Files.exists(held(first)));
    ApplicationId second = yarn.submit(QUEUE, "waits-for-executor", Set.of(), 1,
        BIG_EXECUTOR_MB, 500, GIVE_UP_MILLIS);
    await("the second application registered its AM",
        () -> state(second) == YarnApplicationState.RUNNING);
    await("the scheduler shows one Running and one Starting application before the restart",
        () -> policyInfo().contains(RUNNING_1_STARTING_1));
    ApplicationAttemptId firstAttempt = report(first).getCurrentApplicationAttemptId();
    ApplicationAttemptId secondAttempt = report(second).getCurrentApplicationAttemptId();

    long restartStarted = System.currentTimeMillis();
    yarn.cluster().restartResourceManager(0);
    long restarted = System.currentTimeMillis();
    String infoBeforeNodesCameBack = policyInfo();
    await("the NodeManager re-registered with the restarted RM", this::nodeRunning);
    long nodeBack = System.currentTimeMillis();
    await("the scheduler shows one Running and one Starting application after the restart",
        () -> policyInfo().contains(RUNNING_1_STARTING_1));
    long phasesBack = System.currentTimeMillis();

    assertEquals(firstAttempt, report(first).getCurrentApplicationAttemptId(),
        "work-preserving recovery keeps the first application's attempt");
    assertEquals(secondAttempt, report(second).getCurrentApplicationAttemptId(),
        "work-preserving recovery keeps the second application's attempt");
    assertEquals(YarnApplicationState.RUNNING, state(first));
    assertEquals(YarnApplicationState.RUNNING, state(second));

    Files.createFile(results.resolve(first + ".grow"));
    await("the first application got the executor it asked for after the restart",
        () -> Files.exists(results.resolve(first + ".grown")));
    long grown = Long.parseLong(Files.readString(results.resolve(first + ".grown")).trim());
    List<AppTimeline> apps = yarn.awaitFinished(List.of(first, second), STEP_TIMEOUT);
    AppTimeline a = apps.get(0);
    AppTimeline b = apps.get(1);
    String story = "RM restart took " + (restarted - restartStarted) + " ms; policy right after"
        + " it: " + infoBeforeNodesCameBack + "; NodeManager back " + (nodeBack - restarted)
        + " ms, phases shown " + (phasesBack - restarted) + " ms after the restart; first app's"
        + " new executor " + (grown - restarted) + " ms after the restart\n  " + a + "\n  " + b;
    System.out.println("recovery test: " + story);

    assertEquals(FinalApplicationStatus.SUCCEEDED, a.finalStatus(), story);
    assertEquals(FinalApplicationStatus.SUCCEEDED, b.finalStatus(), story);
    long secondFirstExecutor = Long.parseLong(b.amResult().split(" ")[1]);
    assertTrue(secondFirstExecutor > grown,
        "the Starting application must still wait while the Running one is served: " + story);
  }

  private static Path held(ApplicationId app) {
    return yarn.resultDir().resolve(app + ".held");
  }

  private static ApplicationReport report(ApplicationId app) throws Exception {
    return yarn.client().getApplicationReport(app);
  }

  private static YarnApplicationState state(ApplicationId app) throws Exception {
    return report(app).getYarnApplicationState();
  }

  /** What the scheduler page shows for the queue's ordering policy, or "" while the RM starts. */
  private static String policyInfo() {
    ResourceManager rm = yarn.resourceManager();
    if (rm == null || !(rm.getResourceScheduler() instanceof CapacityScheduler scheduler)
        || scheduler.getQueue(QUEUE) == null) {
      return "";
    }
    return ((AbstractLeafQueue) scheduler.getQueue(QUEUE)).getOrderingPolicy().getInfo();
  }

  private boolean nodeRunning() {
    ResourceManager rm = yarn.resourceManager();
    if (rm == null) {
      return false;
    }
    for (RMNode node : rm.getRMContext().getRMNodes().values()) {
      if (node.getState() == NodeState.RUNNING) {
        return true;
      }
    }
    return false;
  }

  private static void await(String what, Callable<Boolean> condition) {
    Await.until(STEP_TIMEOUT, () -> what + "; policy: " + policyInfo(), condition::call);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
