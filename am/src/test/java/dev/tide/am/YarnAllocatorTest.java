package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.AppSecret;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.impl.AMRMClientImpl;
import org.apache.hadoop.yarn.util.RackResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The allocator's thread, hand-offs and bookkeeping, with YARN's real request table (an
 * unstarted {@code AMRMClientImpl}) whose heartbeat is replaced by a scripted RM, a fake
 * NodeManager and a fake driver.
 */
class YarnAllocatorTest {
  private static final Resource EXECUTOR = Resource.newInstance(768, 1);
  private static final Duration DEADLINE = Duration.ofSeconds(10);

  /** The RM side: hands out queued containers and completions on the next heartbeat. */
  static final class ScriptedAmrmClient extends AMRMClientImpl<ContainerRequest> {
    final List<Container> toAllocate = Collections.synchronizedList(new ArrayList<>());
    final List<ContainerStatus> toComplete = Collections.synchronizedList(new ArrayList<>());
    final Set<ContainerId> released = ConcurrentHashMap.newKeySet();
    final Set<String> excludedNodes = ConcurrentHashMap.newKeySet();
    /** Node state changes for the next heartbeat's response. */
    final List<NodeReport> toUpdateNodes = Collections.synchronizedList(new ArrayList<>());
    /** The cluster size each response reports. */
    volatile int clusterNodes = 1;
    volatile int pendingAtLastHeartbeat;
    volatile int heartbeats;
    volatile float lastProgress;

    @Override
    public AllocateResponse allocate(float progress) {
      // Runs on the allocator thread, so reading the table here is race-free.
      int pending = 0;
      for (var requests : getMatchingRequests(TestContainers.PRIORITY, ResourceRequest.ANY,
          EXECUTOR)) {
        pending += requests.size();
      }
      pendingAtLastHeartbeat = pending;
      lastProgress = progress;
      List<Container> allocated;
      List<ContainerStatus> completed;
      List<NodeReport> updatedNodes;
      synchronized (this) {
        allocated = drain(toAllocate);
        completed = drain(toComplete);
        updatedNodes = drain(toUpdateNodes);
      }
      heartbeats++;
      return AllocateResponse.newInstance(heartbeats, completed, allocated, updatedNodes,
          Resource.newInstance(8192, 8), null, clusterNodes, null, List.of());
    }

    @Override
    public synchronized void updateBlacklist(List<String> additions, List<String> removals) {
      super.updateBlacklist(additions, removals);
      if (additions != null) {
        excludedNodes.addAll(additions);
      }
      if (removals != null) {
        excludedNodes.removeAll(removals);
      }
    }

    /** Pending requests naming this node; allocator thread or after it stopped. */
    int pendingOn(String node) {
      int n = 0;
      for (var requests : getMatchingRequests(TestContainers.PRIORITY, node, EXECUTOR)) {
        n += requests.size();
      }
      return n;
    }

    @Override
    public void releaseAssignedContainer(ContainerId containerId) {
      super.releaseAssignedContainer(containerId);
      released.add(containerId);
    }

    private static <T> List<T> drain(List<T> list) {
      synchronized (list) {
        List<T> copy = new ArrayList<>(list);
        list.clear();
        return copy;
      }
    }
  }

  /** Records what the allocator tells the driver. */
  static final class RecordingDriver implements DriverCallbacks {
    final List<String> launched = new CopyOnWriteArrayList<>();
    final List<String> exited = new CopyOnWriteArrayList<>();
    final List<String> aborts = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    final Set<String> registered = ConcurrentHashMap.newKeySet();

    @Override
    public void executorLaunched(String executorId, String host, int shufflePort) {
      launched.add(executorId + "@" + host + ":" + shufflePort);
    }

    @Override
    public void executorExited(String executorId, boolean failure, String diagnostics) {
      exited.add(executorId + (failure ? " failed: " : " ended: ") + diagnostics);
    }

    @Override
    public void abort(String diagnostics) {
      aborts.add(diagnostics);
    }

    @Override
    public void logEvent(String event, Object... keyValues) {
      StringBuilder line = new StringBuilder(event);
      for (Object value : keyValues) {
        line.append(' ').append(value);
      }
      events.add(line.toString());
    }

    @Override
    public boolean isExecutorRegistered(String executorId) {
      return registered.contains(executorId);
    }
  }

  private final TestContainers containers = TestContainers.create();
  private final ScriptedAmrmClient amrm = new ScriptedAmrmClient();
  private final RecordingDriver driver = new RecordingDriver();
  private final List<ContainerId> started = new CopyOnWriteArrayList<>();
  private final Set<ContainerId> failToStart = ConcurrentHashMap.newKeySet();
  private ExecutorService launcherPool;
  private YarnAllocator allocator;

  @BeforeEach
  void setUp() {
    launcherPool = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (allocator != null) {
      allocator.stop(DEADLINE);
    }
    launcherPool.shutdownNow();
    amrm.close();
  }

  private final AtomicLong clock = new AtomicLong(1_000_000);

  @BeforeAll
  static void initRacks() {
    RackResolver.init(new Configuration());
  }

  private void start(int maxFailures) {
    start(new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY),
        new ExitStatusClassifier(512, 256), maxFailures, Duration.ofMillis(10),
        Duration.ofMillis(50)));
  }

  /** Locality placement, a manual clock, 2 failures per node exclude it for 10 min. */
  private void startWithSettings(int maxFailures, Duration registrationTimeout) {
    start(new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY,
            new LocalityPlacement(), 2, new RackCache(h -> "/rack1")),
        new ExitStatusClassifier(512, 256),
        new YarnAllocator.Settings(EXECUTOR, maxFailures, Duration.ofHours(1), 2,
            Duration.ofMinutes(10), registrationTimeout, Duration.ofMillis(10),
            Duration.ofMillis(50), false, clock::get)));
  }

  private void start(YarnAllocator created) {
    allocator = created;
    ExecutorLaunchContexts contexts = new ExecutorLaunchContexts(new Configuration(false),
        TestContainers.APP.toString(), "amhost", 40000, AppSecret.generate(), Map.of());
    ExecutorLauncher launcher = new ExecutorLauncher(contexts, (container, context) -> {
      if (failToStart.contains(container.getId())) {
        throw new java.io.IOException("NodeManager refused");
      }
      started.add(container.getId());
      return Map.of("tide_shuffle", ByteBuffer.allocate(4).putInt(0, 7337));
    }, launcherPool, ByteBuffer::getInt);
    allocator.start(driver, launcher, () -> 0.25f);
  }

  @Test
  void requestsLaunchesAndReportsExecutors() {
    start(3);
    allocator.requestTotalExecutors(3, 0, Map.of());
    await("3 pending requests", () -> amrm.pendingAtLastHeartbeat == 3);

    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR), containers.container("node1", EXECUTOR)));

    await("3 executors launched", () -> driver.launched.size() == 3);
    assertEquals(Set.of("1@node1:7337", "2@node2:7337", "3@node1:7337"),
        Set.copyOf(driver.launched));
    await("matched requests removed", () -> amrm.pendingAtLastHeartbeat == 0);
    assertEquals(0.25f, amrm.lastProgress);
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("executorLaunched executor 1 ")
        && e.contains("shufflePort 7337")), driver.events::toString);
  }

  @Test
  void surplusContainerIsReleasedAtOnce() {
    start(3);
    allocator.requestTotalExecutors(1, 0, Map.of());
    await("1 pending request", () -> amrm.pendingAtLastHeartbeat == 1);
    Container wanted = containers.container("node1", EXECUTOR);
    Container extra = containers.container("node2", EXECUTOR);

    amrm.toAllocate.addAll(List.of(wanted, extra));

    await("surplus released", () -> amrm.released.contains(extra.getId()));
    await("one executor launched", () -> driver.launched.size() == 1);
    assertEquals(List.of(wanted.getId()), started);

    // Its completion is not an executor's and not a failure.
    amrm.toComplete.add(TestContainers.released(extra));
    await("completion seen", () -> driver.events.stream()
        .anyMatch(e -> e.startsWith("containerCompleted container " + extra.getId())));
    assertEquals(List.of(), driver.exited);
    assertEquals(List.of(), driver.aborts);
  }

  @Test
  void targetDropCancelsPendingRequests() {
    start(3);
    allocator.requestTotalExecutors(5, 0, Map.of());
    await("5 pending", () -> amrm.pendingAtLastHeartbeat == 5);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
  }

  @Test
  void killedExecutorIsReleasedAndNotAFailure() {
    start(3);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container first = containers.container("node1", EXECUTOR);
    amrm.toAllocate.addAll(List.of(first, containers.container("node2", EXECUTOR)));
    await("2 launched", () -> driver.launched.size() == 2);
    String firstId = driver.launched.stream().filter(l -> l.contains("node1")).findFirst()
        .orElseThrow().split("@")[0];

    allocator.requestTotalExecutors(1, 0, Map.of());
    allocator.killExecutors(List.of(firstId));
    await("killed container released", () -> amrm.released.contains(first.getId()));
    amrm.toComplete.add(TestContainers.released(first));

    await("exit reported", () -> driver.exited.size() == 1);
    assertTrue(driver.exited.get(0).startsWith(firstId + " ended: released by the"),
        driver.exited::toString);
    // No replacement is requested: target 1, one running.
    await("no pending requests", () -> amrm.pendingAtLastHeartbeat == 0);
  }

  @Test
  void failuresPastTheLimitAbortTheApplication() {
    start(1);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container a = containers.container("node1", EXECUTOR);
    Container b = containers.container("node2", EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched", () -> driver.launched.size() == 2);

    amrm.toComplete.add(TestContainers.completed(a, 1, "boom"));
    await("first failure reported", () -> driver.exited.size() == 1);
    assertTrue(driver.exited.get(0).contains("failed: executor exited with status 1: boom"),
        driver.exited::toString);
    assertEquals(List.of(), driver.aborts, "1 failure is not past tide.executor.maxFailures=1");

    amrm.toComplete.add(TestContainers.completed(b, 52, "out of memory"));
    await("abort", () -> driver.aborts.size() == 1);
    String abort = driver.aborts.get(0);
    assertTrue(abort.contains("tide.executor.maxFailures = 1"), abort);
    assertTrue(abort.contains("node2") && abort.contains("out of memory"), abort);
  }

  @Test
  void preemptionIsNotAFailure() {
    start(1);
    allocator.requestTotalExecutors(1, 0, Map.of());
    await("1 pending", () -> amrm.pendingAtLastHeartbeat == 1);
    Container a = containers.container("node1", EXECUTOR);
    amrm.toAllocate.add(a);
    await("1 launched", () -> driver.launched.size() == 1);

    amrm.toComplete.add(TestContainers.completed(a, ContainerExitStatus.PREEMPTED, ""));
    await("1 exit", () -> driver.exited.size() == 1);
    assertTrue(driver.exited.stream().noneMatch(e -> e.contains(" failed: ")),
        driver.exited::toString);
    assertEquals(List.of(), driver.aborts);
    await("replaced", () -> amrm.pendingAtLastHeartbeat == 1);
  }

  /**
   * DESIGN.md "Container outcome": an executor killed for exceeding its memory is a failure the
   * job's settings caused. It counts towards tide.executor.maxFailures, so a job whose executors
   * keep exceeding their memory ends, naming the setting to raise; the node is never excluded.
   */
  @Test
  void memoryKillsCountTowardsMaxFailuresButNotAgainstTheNode() {
    startWithSettings(2, Duration.ZERO); // 2 failures exclude a node, more than 2 end the job
    allocator.requestTotalExecutors(1, 0, Map.of());
    await("1 pending", () -> amrm.pendingAtLastHeartbeat == 1);
    for (int i = 1; i <= 3; i++) {
      Container c = containers.container("node1", EXECUTOR);
      amrm.toAllocate.add(c);
      int launched = i;
      await("executor " + i + " launched", () -> driver.launched.size() == launched);
      amrm.toComplete.add(TestContainers.completed(c, ContainerExitStatus.KILLED_EXCEEDED_PMEM,
          "Container is running beyond physical memory limits"));
      await("exit " + i, () -> driver.exited.size() == launched);
      assertTrue(driver.exited.get(i - 1).contains("failed: ")
          && driver.exited.get(i - 1).contains("tide.executor.memoryOverhead"),
          driver.exited::toString);
      assertEquals(Set.of(), amrm.excludedNodes, "a memory kill is not held against node1");
      if (i < 3) {
        assertEquals(List.of(), driver.aborts, i + " failures are not past maxFailures = 2");
        await("replacement " + i, () -> amrm.pendingAtLastHeartbeat == 1);
      }
    }
    await("abort", () -> driver.aborts.size() == 1);
    String abort = driver.aborts.get(0);
    assertTrue(abort.contains("tide.executor.maxFailures = 2"), abort);
    assertTrue(abort.contains("raise tide.executor.memoryOverhead"), abort);
  }

  @Test
  void failedLaunchIsReleasedAndCounted() {
    start(1);
    allocator.requestTotalExecutors(1, 0, Map.of());
    await("1 pending", () -> amrm.pendingAtLastHeartbeat == 1);
    Container bad = containers.container("node1", EXECUTOR);
    failToStart.add(bad.getId());
    amrm.toAllocate.add(bad);

    await("bad container released", () -> amrm.released.contains(bad.getId()));
    assertEquals(List.of(), driver.launched);
    // A replacement is requested.
    await("replacement requested", () -> amrm.pendingAtLastHeartbeat == 1);

    Container bad2 = containers.container("node1", EXECUTOR);
    failToStart.add(bad2.getId());
    amrm.toAllocate.add(bad2);
    await("abort after second failed launch", () -> driver.aborts.size() == 1);
    assertTrue(driver.aborts.get(0).contains("NodeManager refused"), driver.aborts::toString);
  }

  @Test
  void stopReleasesEveryContainer() throws Exception {
    start(3);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container a = containers.container("node1", EXECUTOR);
    Container b = containers.container("node2", EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched", () -> driver.launched.size() == 2);

    allocator.stop(DEADLINE);

    assertEquals(Set.of(a.getId(), b.getId()), amrm.released);
  }

  @Test
  void localityHintsBecomeRequestsOnThoseNodes() throws Exception {
    startWithSettings(3, Duration.ZERO);
    // 4 tasks prefer node1, 2 tasks per executor: 2 executors there.
    allocator.requestTotalExecutors(3, 4, Map.of("node1", 4));
    await("3 pending", () -> amrm.pendingAtLastHeartbeat == 3);
    // Hints change: the node1 requests are cancelled and placed on node2.
    assertEquals(2, amrm.pendingOn("node1"));
    allocator.requestTotalExecutors(3, 2, Map.of("node2", 2));
    await("requests moved to node2",
        () -> amrm.pendingOn("node2") == 1 && amrm.pendingOn("node1") == 0);
    await("3 pending", () -> amrm.pendingAtLastHeartbeat == 3);
  }

  @Test
  void unregisteredExecutorIsReleasedAndReplacedAfterTheTimeout() {
    startWithSettings(3, Duration.ofSeconds(60));
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container slow = containers.container("node1", EXECUTOR);
    Container fine = containers.container("node2", EXECUTOR);
    amrm.toAllocate.addAll(List.of(slow, fine));
    await("2 launched", () -> driver.launched.size() == 2);
    String fineId = driver.launched.stream().filter(l -> l.contains("node2")).findFirst()
        .orElseThrow().split("@")[0];
    driver.registered.add(fineId);
    await("no pending", () -> amrm.pendingAtLastHeartbeat == 0);

    clock.addAndGet(59_000);
    int heartbeats = amrm.heartbeats;
    await("a few more rounds", () -> amrm.heartbeats > heartbeats + 2);
    assertEquals(Set.of(), amrm.released, "not yet past tide.executor.registrationTimeout");

    clock.addAndGet(1_000);
    await("unregistered executor released", () -> amrm.released.contains(slow.getId()));
    await("replacement requested", () -> amrm.pendingAtLastHeartbeat == 1);
    assertEquals(Set.of(slow.getId()), amrm.released, "the registered executor stays");
    amrm.toComplete.add(TestContainers.released(slow));
    await("exit reported", () -> driver.exited.size() == 1);
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("containerReleased")
        && e.contains("not registered in time")), driver.events::toString);
  }

  @Test
  void repeatedFailuresOnANodeExcludeItUntilTheTimeout() {
    startWithSettings(10, Duration.ZERO);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container a = containers.container("bad", EXECUTOR);
    Container b = containers.container("bad", EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched", () -> driver.launched.size() == 2);

    amrm.toComplete.add(TestContainers.completed(a, 1, "boom"));
    await("first failure", () -> driver.exited.size() == 1);
    assertEquals(Set.of(), amrm.excludedNodes, "1 failure is below tide.yarn.maxFailuresPerHost");
    amrm.toComplete.add(TestContainers.completed(b, 1, "boom"));
    await("node excluded", () -> amrm.excludedNodes.contains("bad"));
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("nodeExcluded node bad")),
        driver.events::toString);
    assertEquals(List.of(), driver.aborts);

    clock.addAndGet(Duration.ofMinutes(10).toMillis());
    await("exclusion ended", () -> amrm.excludedNodes.isEmpty());
  }

  /**
   * Issue 17 item 6: two executors killed on each node excluded every node, and the job sat
   * with no executor until an exclusion expired (10 min). Now the oldest exclusion is lifted
   * at once and the next container there starts an executor.
   */
  @Test
  void whenEveryNodeIsExcludedTheOldestIsLiftedAndTheJobGoesOn() {
    startWantingTwoExecutors(2);
    failTwiceOn("node1");
    clock.addAndGet(1_000);
    failTwiceOn("node2");

    await("node1's exclusion lifted", () -> amrm.excludedNodes.equals(Set.of("node2")));
    assertTrue(driver.events.stream().anyMatch(
        e -> e.startsWith("nodeExclusionLifted node node1 clusterNodes 2 excludedNodes 2")),
        driver.events::toString);
    await("replacements requested", () -> amrm.pendingAtLastHeartbeat == 2);

    amrm.toAllocate.add(containers.container("node1", EXECUTOR));
    await("an executor launched on node1", () -> driver.launched.contains("5@node1:7337"));
    assertEquals(List.of(), driver.aborts);
  }

  @Test
  void theStatusSaysWhichNodesAreExcludedWhileExecutorsAreMissing() {
    startWantingTwoExecutors(2);
    assertEquals("", allocator.waitingReason(), "nothing excluded");

    failTwiceOn("node1");
    await("node1 in the status", () -> allocator.waitingReason()
        .equals("nodes excluded node1 (executor failures)"));
    failTwiceOn("node2");
    await("the lift in the status", () -> allocator.waitingReason().equals(
        "nodes excluded node2 (executor failures); all 2 nodes were excluded, lifted node1"));

    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node1", EXECUTOR)));
    await("target met, nothing to explain", () -> allocator.waitingReason().isEmpty());
  }

  @Test
  void exclusionsOfNodesTheRmReportsLostDoNotKeepOthersExcluded() {
    startWantingTwoExecutors(3);
    failTwiceOn("gone");
    amrm.toUpdateNodes.add(NodeReport.newInstance(NodeId.newInstance("gone", 45454),
        NodeState.LOST, "gone:8042", "/rack1", null, null, 0, "lost", 0));
    amrm.clusterNodes = 2;
    clock.addAndGet(1_000);
    failTwiceOn("node1");
    int heartbeats = amrm.heartbeats;
    await("a few more rounds", () -> amrm.heartbeats > heartbeats + 2);
    assertEquals(Set.of("gone", "node1"), amrm.excludedNodes, "node2 is still usable");

    clock.addAndGet(1_000);
    failTwiceOn("node2");
    await("node1's exclusion lifted, not the lost node's",
        () -> amrm.excludedNodes.equals(Set.of("gone", "node2")));
  }

  /**
   * Settings as {@link #startWithSettings} (2 failures exclude a node), a cluster of
   * {@code clusterNodes} as the RM reports it, target 2 and its requests pending.
   */
  private void startWantingTwoExecutors(int clusterNodes) {
    amrm.clusterNodes = clusterNodes;
    startWithSettings(10, Duration.ZERO);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
  }

  /** Two executors on {@code node} fail: the node is excluded (2 failures per node). */
  private void failTwiceOn(String node) {
    int launchedBefore = driver.launched.size();
    Container a = containers.container(node, EXECUTOR);
    Container b = containers.container(node, EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched on " + node, () -> driver.launched.size() == launchedBefore + 2);
    int exitedBefore = driver.exited.size();
    amrm.toComplete.addAll(List.of(TestContainers.completed(a, 1, "boom"),
        TestContainers.completed(b, 1, "boom")));
    await("2 failures on " + node, () -> driver.exited.size() == exitedBefore + 2);
    await(node + " excluded", () -> driver.events.stream()
        .anyMatch(e -> e.startsWith("nodeExcluded node " + node + " ")));
  }

  @Test
  void failuresOlderThanTheValidityIntervalNoLongerCount() {
    startWithSettings(1, Duration.ZERO);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container a = containers.container("node1", EXECUTOR);
    Container b = containers.container("node2", EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched", () -> driver.launched.size() == 2);

    amrm.toComplete.add(TestContainers.completed(a, 1, "boom"));
    await("first failure", () -> driver.exited.size() == 1);
    clock.addAndGet(Duration.ofHours(1).toMillis());
    amrm.toComplete.add(TestContainers.completed(b, 1, "boom"));
    await("second failure", () -> driver.exited.size() == 2);
    int heartbeats = amrm.heartbeats;
    await("a few more rounds", () -> amrm.heartbeats > heartbeats + 2);
    assertEquals(List.of(), driver.aborts, "the first failure expired an hour later");
  }

  @Test
  void headroomCountsWholeExecutorsOfTheLastResponse() {
    YarnAllocator created = new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY),
        new ExitStatusClassifier(512, 256), 3, Duration.ofMillis(10), Duration.ofMillis(50));
    assertEquals(0, created.grantableExecutors(), "unknown before the first heartbeat");
    start(created);
    allocator.requestTotalExecutors(1, 0, Map.of());
    // The scripted RM reports 8192 MiB and 8 vcores: 10 by memory, 8 by cores.
    await("headroom known", () -> allocator.grantableExecutors() == 8);
    assertEquals(2, YarnAllocator.executorsThatFit(Resource.newInstance(2000, 64), EXECUTOR));
    assertEquals(0, YarnAllocator.executorsThatFit(Resource.newInstance(-512, 4), EXECUTOR));
  }

  /**
   * The cadence with the production intervals, on a manual clock and the test's thread: 200 ms
   * while requests are pending, executors starting or released containers not yet reported
   * completed, doubling to 3 s when nothing is, and a heartbeat at once when the target changes
   * (not when it is declared unchanged) or an executor is killed.
   */
  @Test
  void heartbeatsEvery200msWhilePendingBacksOffTo3sAndWakesOnANewTarget() {
    ManualHeartbeats rm = new ManualHeartbeats(amrm);
    YarnAllocator manual = new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY),
        new ExitStatusClassifier(512, 256), new YarnAllocator.Settings(EXECUTOR, 3,
            Duration.ofHours(1), 0, Duration.ofMinutes(10), Duration.ZERO,
            Duration.ofMillis(200), Duration.ofSeconds(3), false, clock::get),
        rm::nanos);
    manual.bind(driver, new ExecutorLauncher(new ExecutorLaunchContexts(
        new Configuration(false), TestContainers.APP.toString(), "amhost", 40000,
        AppSecret.generate(), Map.of()), (container, context) -> {
          started.add(container.getId());
          return Map.of("tide_shuffle", ByteBuffer.allocate(4).putInt(0, 7337));
        }, new CallerRunsExecutorService(), ByteBuffer::getInt), () -> 0.5f);

    // Nothing asked for: the first round at once, then 400, 800, 1600 ms, then every 3 s.
    rm.runUntil(manual, 3_000);
    assertEquals(List.of(0L, 400L, 1_200L, 2_800L), rm.heartbeatMillis, "backing off");
    rm.heartbeatMillis.clear();
    manual.requestTotalExecutors(0, 0, Map.of());
    rm.runUntil(manual, 9_000);
    assertEquals(List.of(5_800L, 8_800L), rm.heartbeatMillis,
        "every 3 s; an unchanged target wakes nothing");

    // A new target: a heartbeat at once, then every 200 ms while its requests are pending.
    rm.heartbeatMillis.clear();
    manual.requestTotalExecutors(2, 0, Map.of());
    rm.runUntil(manual, 9_600);
    assertEquals(List.of(9_000L, 9_200L, 9_400L, 9_600L), rm.heartbeatMillis);
    assertEquals(2, amrm.pendingAtLastHeartbeat);

    // Both granted at 9800: one more 200 ms round while they start, then backing off again.
    rm.heartbeatMillis.clear();
    Container node1 = containers.container("node1", EXECUTOR);
    amrm.toAllocate.addAll(List.of(node1, containers.container("node2", EXECUTOR)));
    rm.runUntil(manual, 13_000);
    assertEquals(2, driver.launched.size());
    assertEquals(List.of(9_800L, 10_000L, 10_400L, 11_200L, 12_800L), rm.heartbeatMillis);

    // Woken at once by a new target, not at 12800 + 3200.
    rm.heartbeatMillis.clear();
    manual.requestTotalExecutors(3, 0, Map.of());
    rm.runUntil(manual, 13_400);
    assertEquals(List.of(13_000L, 13_200L, 13_400L), rm.heartbeatMillis);
    assertEquals(1, amrm.pendingAtLastHeartbeat);

    // Target 1 and one executor killed (as the driver removes an idle one): released at once,
    // then 200 ms rounds until the RM reports the container completed, then backing off again.
    manual.requestTotalExecutors(1, 0, Map.of());
    rm.runUntil(manual, 20_000);
    rm.heartbeatMillis.clear();
    String victim = driver.launched.stream().filter(l -> l.contains("node1")).findFirst()
        .orElseThrow().split("@")[0];
    manual.killExecutors(List.of(victim));
    rm.runUntil(manual, 20_800);
    assertTrue(amrm.released.contains(node1.getId()));
    assertEquals(List.of(20_000L, 20_200L, 20_400L, 20_600L, 20_800L), rm.heartbeatMillis,
        "200 ms while the release is not reported");
    rm.heartbeatMillis.clear();
    amrm.toComplete.add(TestContainers.released(node1));
    rm.runUntil(manual, 24_000);
    assertEquals(1, driver.exited.size(), driver.exited::toString);
    assertEquals(List.of(21_000L, 21_400L, 22_200L, 23_800L), rm.heartbeatMillis);
  }

  /** A manual clock that runs an allocator's loop on the test thread and notes its heartbeats. */
  private static final class ManualHeartbeats {
    private final ScriptedAmrmClient amrm;
    final List<Long> heartbeatMillis = new ArrayList<>();
    private long nowNanos;

    ManualHeartbeats(ScriptedAmrmClient amrm) {
      this.amrm = amrm;
    }

    long nanos() {
      return nowNanos;
    }

    /** Runs every round due up to {@code endMillis}, jumping the clock from one to the next. */
    void runUntil(YarnAllocator allocator, long endMillis) {
      long end = TimeUnit.MILLISECONDS.toNanos(endMillis);
      while (true) {
        int before = amrm.heartbeats;
        long wait = allocator.runDue();
        if (amrm.heartbeats != before) {
          heartbeatMillis.add(TimeUnit.NANOSECONDS.toMillis(nowNanos));
        }
        if (wait == 0) {
          continue;
        }
        if (nowNanos + wait > end) {
          nowNanos = end;
          return;
        }
        nowNanos += wait;
      }
    }
  }

  /** Runs each launch on the caller's thread, so its result is posted before the next pass. */
  private static final class CallerRunsExecutorService extends AbstractExecutorService {
    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what);
      }
    }
  }

}
