package dev.tide.am.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.allocation.ExitStatusClassifier;
import dev.tide.am.allocation.LocalityPlacement;
import dev.tide.am.allocation.MaxExecutorFailures;
import dev.tide.am.allocation.RackCache;
import dev.tide.app.AppSecret;
import dev.tide.driver.events.EventName;
import dev.tide.driver.scheduler.ExecutorActivity;
import dev.tide.testing.Await;
import dev.tide.time.ManualClock;
import java.io.IOException;
import java.net.ConnectException;
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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.PreemptionResourceRequest;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.StrictPreemptionContract;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.InvalidContainerRequestException;
import org.apache.hadoop.yarn.client.api.impl.AMRMClientImpl;
import org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.util.RackResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The allocator's rounds, hand-offs and bookkeeping, with YARN's real request table (an
 * unstarted {@code AMRMClientImpl}) whose heartbeat is replaced by a scripted RM, a fake
 * NodeManager and a fake driver. Most tests step the allocator on the test's thread with
 * {@link YarnAllocator#runDue()} on a {@link ManualClock}, with the production intervals (200 ms
 * while anything is pending, up to 3 s) and launches run on the caller's thread; a few run its
 * own thread, to show what the thread adds (stopping, dying).
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
    /** The preemption message every response carries from now on (null: none). */
    volatile PreemptionMessage preemption;
    volatile int pendingAtLastHeartbeat;
    volatile int heartbeats;
    volatile float lastProgress;
    /**
     * The next heartbeat (only) throws a NoSuchMethodError with this message, as a client of
     * another Hadoop version would.
     */
    volatile String failNextHeartbeatWith;
    /** Every request added from now on is refused with this message. */
    volatile String refuseRequestsWith;
    /** The next heartbeats that fail to reach the RM. */
    volatile int unreachableHeartbeats;
    /** Every heartbeat from now on is answered: the application attempt is unknown. */
    volatile boolean attemptUnknown;
    /** Completions handed out from heartbeat {@link #completeLaterAt} on, not before. */
    final List<ContainerStatus> toCompleteLater = Collections.synchronizedList(new ArrayList<>());
    volatile int completeLaterAt;

    @Override
    public AllocateResponse allocate(float progress) throws IOException, YarnException {
      String failure = failNextHeartbeatWith;
      if (failure != null) {
        failNextHeartbeatWith = null;
        throw new NoSuchMethodError(failure);
      }
      if (unreachableHeartbeats > 0) {
        unreachableHeartbeats--;
        throw new ConnectException("Connection refused");
      }
      if (attemptUnknown) {
        throw new ApplicationAttemptNotFoundException("Application attempt "
            + TestContainers.ATTEMPT + " doesn't exist in ApplicationMasterService cache.");
      }
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
        if (heartbeats + 1 >= completeLaterAt) {
          completed.addAll(drain(toCompleteLater));
        }
        updatedNodes = drain(toUpdateNodes);
      }
      heartbeats++;
      return AllocateResponse.newInstance(heartbeats, completed, allocated, updatedNodes,
          Resource.newInstance(8192, 8), null, clusterNodes, preemption, List.of());
    }

    @Override
    public synchronized void addContainerRequest(ContainerRequest request) {
      if (refuseRequestsWith != null) {
        throw new InvalidContainerRequestException(refuseRequestsWith);
      }
      super.addContainerRequest(request);
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
    final List<String> attemptsGone = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    final Set<String> registered = ConcurrentHashMap.newKeySet();
    /** Executors whose connection the driver has seen close. */
    final Set<String> gone = ConcurrentHashMap.newKeySet();
    /** "id millis": how long after its container's allocation each executor was launched. */
    final List<String> sinceAllocation = new CopyOnWriteArrayList<>();
    /** executorLaunched fails from now on, as a driver whose loop stopped would. */
    volatile boolean failLaunched;
    /** Tasks succeeded so far, as the driver would count them. */
    volatile long tasksSucceeded;
    /** Node changes and preempted executors the allocator reported, in order. */
    final List<String> nodesAndPreemptions = new CopyOnWriteArrayList<>();
    /** What the driver says its executors do. */
    volatile List<ExecutorActivity> activity = List.of();

    @Override
    public void nodeDecommissioning(String node, long leavesAtMillis) {
      nodesAndPreemptions.add("decommissioning " + node + " " + leavesAtMillis);
    }

    @Override
    public void nodeLost(String node) {
      nodesAndPreemptions.add("lost " + node);
    }

    @Override
    public void nodeRunning(String node) {
      nodesAndPreemptions.add("running " + node);
    }

    @Override
    public void executorPreempted(String executorId, String why) {
      nodesAndPreemptions.add("preempted " + executorId);
    }

    @Override
    public List<ExecutorActivity> executorActivity() {
      return activity;
    }

    @Override
    public long tasksSucceeded() {
      return tasksSucceeded;
    }

    @Override
    public void executorLaunched(String executorId, String host, int shufflePort,
        long sinceAllocationMillis) {
      sinceAllocation.add(executorId + " " + sinceAllocationMillis);
      if (failLaunched) {
        throw new IllegalStateException("driver loop shut down",
            new RejectedExecutionException("event loop terminated"));
      }
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
    public void attemptGone(String diagnostics) {
      attemptsGone.add(diagnostics);
      DriverCallbacks.super.attemptGone(diagnostics);
    }

    @Override
    public void logEvent(EventName event, Object... keyValues) {
      StringBuilder line = new StringBuilder(event.wireName());
      for (Object value : keyValues) {
        line.append(' ').append(value);
      }
      events.add(line.toString());
    }

    @Override
    public boolean isExecutorRegistered(String executorId) {
      return registered.contains(executorId);
    }

    @Override
    public boolean isExecutorGone(String executorId) {
      return gone.contains(executorId);
    }
  }

  private final ManualClock clock = new ManualClock(0);
  private final TestContainers containers = TestContainers.create();
  private final ScriptedAmrmClient amrm = new ScriptedAmrmClient();
  private final RecordingDriver driver = new RecordingDriver();
  private final List<ContainerId> started = new CopyOnWriteArrayList<>();
  private final Set<ContainerId> failToStart = ConcurrentHashMap.newKeySet();
  /** How long a NodeManager takes to start a container, on the manual clock. */
  private volatile long startContainerMillis;
  /** When the stepped allocator heartbeated, in ms of the manual clock. */
  private final List<Long> heartbeatMillis = new ArrayList<>();
  private ExecutorService launcherPool;
  private YarnAllocator allocator;

  @BeforeAll
  static void initRacks() {
    RackResolver.init(new Configuration());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (allocator != null) {
      allocator.stop(DEADLINE);
    }
    if (launcherPool != null) {
      launcherPool.shutdownNow();
    }
    amrm.close();
  }

  /**
   * An allocator on the manual clock, bound but not started: locality placement (2 tasks per
   * executor, one rack), more than {@code maxFailures} failures within 1 h abort the application
   * (0: the default that follows the executors), {@code maxFailuresPerNode} of them exclude
   * a node for 10 min, the production heartbeat intervals.
   */
  private void bind(int maxFailures, int maxFailuresPerNode, Duration registrationTimeout) {
    allocator = create(maxFailures, maxFailuresPerNode, registrationTimeout);
    allocator.bind(driver, launcher(new CallerRunsExecutorService()), () -> 0.25f);
  }

  private YarnAllocator create(int maxFailures, int maxFailuresPerNode,
      Duration registrationTimeout) {
    return new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY,
            new LocalityPlacement(), 2, new RackCache(h -> "/rack1")),
        new ExitStatusClassifier(512, 256),
        new YarnAllocator.Settings(EXECUTOR, maxFailures == 0
            ? MaxExecutorFailures.followingExecutors() : MaxExecutorFailures.of(maxFailures),
            Duration.ofHours(1), maxFailuresPerNode, Duration.ofMinutes(10), registrationTimeout,
            Duration.ofMillis(200), Duration.ofSeconds(3), false, clock::millis),
        clock::nanos);
  }

  /** An allocator on its own thread and the system's clock (10 ms / 50 ms intervals). */
  private void startThread(int maxFailures) {
    launcherPool = Executors.newFixedThreadPool(2);
    allocator = new YarnAllocator(amrm,
        new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY),
        new ExitStatusClassifier(512, 256),
        new YarnAllocator.Settings(EXECUTOR, MaxExecutorFailures.of(maxFailures),
            Duration.ofHours(1), 0,
            Duration.ofMinutes(10), Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(50),
            false, System::currentTimeMillis));
    allocator.start(driver, launcher(launcherPool), () -> 0.25f);
  }

  private ExecutorLauncher launcher(ExecutorService pool) {
    ExecutorLaunchContexts contexts = new ExecutorLaunchContexts(new Configuration(false),
        TestContainers.APP.toString(), "amhost", 40000, AppSecret.generate(), Map.of());
    return new ExecutorLauncher(contexts, (container, context) -> {
      if (failToStart.contains(container.getId())) {
        throw new java.io.IOException("NodeManager refused");
      }
      started.add(container.getId());
      clock.advanceMillis(startContainerMillis); // the NodeManager's startContainers call
      return Map.of("tide_shuffle", ByteBuffer.allocate(4).putInt(0, 7337));
    }, pool, ByteBuffer::getInt);
  }

  /** {@code from}, {@code from + step}, ... up to {@code to} inclusive. */
  private static List<Long> every(long from, long to, long step) {
    List<Long> times = new ArrayList<>();
    for (long t = from; t <= to; t += step) {
      times.add(t);
    }
    return times;
  }

  private static List<Long> concat(List<Long> first, List<Long> second) {
    List<Long> both = new ArrayList<>(first);
    both.addAll(second);
    return both;
  }

  /** Runs every round due up to {@code endMillis}, jumping the clock from one to the next. */
  private void runUntil(long endMillis) {
    long end = TimeUnit.MILLISECONDS.toNanos(endMillis);
    while (true) {
      int before = amrm.heartbeats;
      long wait = allocator.runDue();
      if (amrm.heartbeats != before) {
        heartbeatMillis.add(clock.millis());
      }
      if (wait == YarnAllocator.FAILED) {
        return;
      }
      if (wait == 0) {
        continue;
      }
      if (clock.nanos() + wait > end) {
        clock.advanceNanos(Math.max(0, end - clock.nanos()));
        return;
      }
      clock.advanceNanos(wait);
    }
  }

  /** Runs the rounds due in the next {@code millis} (with 200 ms: the next heartbeat). */
  private void runFor(long millis) {
    runUntil(clock.millis() + millis);
  }

  /**
   * Runs until the allocator's next heartbeat (at most 3 s away on the manual clock) and what
   * is due at once after it: the RM's answer to something queued now arrives there.
   */
  private void nextHeartbeat() {
    int before = amrm.heartbeats;
    long end = clock.nanos() + TimeUnit.SECONDS.toNanos(3);
    while (true) {
      int last = amrm.heartbeats;
      long wait = allocator.runDue();
      if (amrm.heartbeats != last) {
        heartbeatMillis.add(clock.millis());
      }
      if (wait == YarnAllocator.FAILED || (wait > 0 && amrm.heartbeats != before)) {
        return;
      }
      if (wait > 0) {
        if (clock.nanos() + wait > end) {
          throw new AssertionError("no heartbeat within 3 s");
        }
        clock.advanceNanos(wait);
      }
    }
  }

  /** Runs what is due now: posted tasks and, if due, a round. */
  private void step() {
    runFor(0);
  }

  @Test
  void requestsLaunchesAndReportsExecutors() {
    bind(3, 0, Duration.ZERO);
    allocator.requestTotalExecutors(3, 0, Map.of());
    step();
    assertEquals(3, amrm.pendingAtLastHeartbeat, "asked at once");

    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR), containers.container("node1", EXECUTOR)));
    nextHeartbeat();
    assertEquals(Set.of("1@node1:7337", "2@node2:7337", "3@node1:7337"),
        Set.copyOf(driver.launched));
    nextHeartbeat();
    assertEquals(0, amrm.pendingAtLastHeartbeat, "matched requests removed");
    assertEquals(0.25f, amrm.lastProgress);
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("executorLaunched executor 1 ")
        && e.contains("shufflePort 7337")), driver.events::toString);
  }

  /**
   * Issue 15: the policy's start latency runs from the container's allocation to the executor's
   * registration, so the allocator tells the driver how long the launch took after the
   * allocation (here the NodeManager takes 300 ms to start each container).
   */
  @Test
  void theDriverHearsHowLongAfterItsAllocationAnExecutorWasLaunched() {
    bind(3, 0, Duration.ZERO);
    startContainerMillis = 300;
    allocator.requestTotalExecutors(2, 0, Map.of());
    step();
    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR)));
    nextHeartbeat();
    assertEquals(List.of("1 600", "2 600"), driver.sinceAllocation,
        "both allocated at 0 and launched one after the other here, 300 ms each");
  }

  @Test
  void surplusContainerIsReleasedAtOnce() {
    bind(3, 0, Duration.ZERO);
    allocator.requestTotalExecutors(1, 0, Map.of());
    step();
    Container wanted = containers.container("node1", EXECUTOR);
    Container extra = containers.container("node2", EXECUTOR);

    amrm.toAllocate.addAll(List.of(wanted, extra));
    nextHeartbeat();
    assertEquals(Set.of(extra.getId()), amrm.released);
    assertEquals(1, driver.launched.size());
    assertEquals(List.of(wanted.getId()), started);

    // Its completion is not an executor's and not a failure.
    amrm.toComplete.add(TestContainers.released(extra));
    nextHeartbeat();
    assertTrue(driver.events.stream()
        .anyMatch(e -> e.startsWith("containerCompleted container " + extra.getId())));
    assertEquals(List.of(), driver.exited);
    assertEquals(List.of(), driver.aborts);
  }

  @Test
  void targetDropCancelsPendingRequests() {
    bind(3, 0, Duration.ZERO);
    allocator.requestTotalExecutors(5, 0, Map.of());
    step();
    assertEquals(5, amrm.pendingAtLastHeartbeat);
    allocator.requestTotalExecutors(2, 0, Map.of());
    step();
    assertEquals(2, amrm.pendingAtLastHeartbeat);
  }

  @Test
  void killedExecutorIsReleasedAndNotAFailure() {
    bind(3, 0, Duration.ZERO);
    allocator.requestTotalExecutors(2, 0, Map.of());
    step();
    Container first = containers.container("node1", EXECUTOR);
    amrm.toAllocate.addAll(List.of(first, containers.container("node2", EXECUTOR)));
    nextHeartbeat();
    assertEquals(List.of("1@node1:7337", "2@node2:7337"), driver.launched);

    allocator.requestTotalExecutors(1, 0, Map.of());
    allocator.killExecutors(List.of("1"));
    step();
    assertEquals(Set.of(first.getId()), amrm.released, "released at once");
    amrm.toComplete.add(TestContainers.released(first));
    nextHeartbeat();

    assertEquals(1, driver.exited.size(), driver.exited::toString);
    assertTrue(driver.exited.get(0).startsWith("1 ended: released by the"),
        driver.exited::toString);
    // No replacement is requested: target 1, one running.
    assertEquals(0, amrm.pendingAtLastHeartbeat);
  }

  @Test
  void failuresPastTheLimitAbortTheApplication() {
    bind(1, 0, Duration.ZERO);
    launchTwo("node1", "node2");

    amrm.toComplete.add(TestContainers.completed(launched(0), 1, "boom"));
    nextHeartbeat();
    assertEquals(1, driver.exited.size());
    assertTrue(driver.exited.get(0).contains("failed: executor exited with status 1: boom"),
        driver.exited::toString);
    assertEquals(List.of(), driver.aborts, "1 failure is not past tide.executor.maxFailures=1");

    amrm.toComplete.add(TestContainers.completed(launched(1), 1, "boom again"));
    nextHeartbeat();
    assertEquals(1, driver.aborts.size());
    String abort = driver.aborts.get(0);
    assertTrue(abort.startsWith("2 executor failures in a row (no task succeeded between them) within 3600 s (more than"
        + " tide.executor.maxFailures = 1; per node {node1=1, node2=1})"), abort);
    assertTrue(abort.endsWith("last: executor 2 on node2: executor exited with status 1:"
        + " boom again"), abort);
  }

  @Test
  void anExecutorTheDriverDeclaredLostIsReleasedAndCountedAsAFailure() {
    bind(1, 0, Duration.ZERO);
    launchTwo("node1", "node2");

    String why = "executor 1 on node1 lost: no heartbeat for 61 s"
        + " (tide.executor.heartbeatTimeout = 60s)";
    allocator.killLostExecutor("1", why);
    step();
    assertEquals(Set.of(launched(0).getId()), amrm.released, "released at once");
    assertEquals(List.of(), driver.aborts, "1 failure is not past tide.executor.maxFailures=1");
    amrm.toComplete.add(TestContainers.released(launched(0)));
    nextHeartbeat();
    assertEquals(List.of(), driver.aborts, "its release is not counted a second time");

    amrm.toComplete.add(TestContainers.completed(launched(1), 1, "boom"));
    nextHeartbeat();
    assertEquals(1, driver.aborts.size(), "the loss counted: a second failure is past the limit");
    assertTrue(driver.aborts.get(0).contains("per node {node1=1, node2=1}"),
        driver.aborts::toString);
  }

  @Test
  void preemptedExecutorIsNotAFailureAndIsReplaced() {
    bind(1, 1, Duration.ZERO);
    launchTwo("node1", "node2");

    amrm.toComplete.add(TestContainers.completed(launched(0), ContainerExitStatus.PREEMPTED,
        ""));
    amrm.toComplete.add(TestContainers.completed(launched(1), ContainerExitStatus.PREEMPTED,
        ""));
    nextHeartbeat();
    assertEquals(List.of("1 ended: preempted by YARN (exit status -102)",
        "2 ended: preempted by YARN (exit status -102)"), driver.exited);
    assertEquals(List.of(), driver.aborts);
    assertEquals(Set.of(), amrm.excludedNodes);
    nextHeartbeat();
    assertEquals(2, amrm.pendingAtLastHeartbeat, "both replaced");
  }

  /**
   * Containers killed for exceeding their memory (YARN's -104 and -105, the executor's own exit
   * 52 after a task ran out of heap) are executor failures: reported as failed, counted towards
   * tide.executor.maxFailures. But not against their node: two on one node with
   * tide.yarn.maxFailuresPerHost = 2 do not exclude it (two exits with status 1 do:
   * {@link #repeatedFailuresOnANodeExcludeItUntilTheTimeout}).
   */
  @Test
  void aMemoryKilledExecutorIsCountedButItsNodeIsNotExcluded() {
    amrm.clusterNodes = 3;
    bind(2, 2, Duration.ZERO);
    launchTwo("node1", "node1");

    amrm.toComplete.add(TestContainers.completed(launched(0),
        ContainerExitStatus.KILLED_EXCEEDED_PMEM, "beyond physical memory limits"));
    amrm.toComplete.add(TestContainers.completed(launched(1), 52, ""));
    nextHeartbeat();
    assertEquals(2, driver.exited.size(), driver.exited::toString);
    assertTrue(driver.exited.get(0).startsWith("1 failed: killed by YARN for exceeding its"
        + " physical memory limit (exit status -104); raise tide.executor.memoryOverhead"),
        driver.exited::toString);
    assertTrue(driver.exited.get(1).startsWith("2 failed: executor exited with status 52"
        + " after a task ran out of heap"), driver.exited::toString);
    assertEquals(Set.of(), amrm.excludedNodes, "node1 is not excluded");
    assertTrue(driver.events.stream().noneMatch(e -> e.startsWith("nodeExcluded")),
        driver.events::toString);
    assertEquals(List.of(), driver.aborts, "2 failures are not past tide.executor.maxFailures");

    // Replaced, and node1 may take the replacement; a third memory kill is one too many.
    nextHeartbeat();
    assertEquals(2, amrm.pendingAtLastHeartbeat);
    Container third = containers.container("node1", EXECUTOR);
    amrm.toAllocate.add(third);
    nextHeartbeat();
    assertEquals(List.of(third.getId()), started.subList(2, 3));
    amrm.toComplete.add(TestContainers.completed(third,
        ContainerExitStatus.KILLED_EXCEEDED_VMEM, ""));
    nextHeartbeat();
    assertEquals(1, driver.aborts.size(), driver.exited::toString);
    String abort = driver.aborts.get(0);
    assertTrue(abort.startsWith("3 executor failures in a row (no task succeeded between them)"
        + " within 3600 s (more than tide.executor.maxFailures = 2; per node {}, 3 not against a"
        + " node (memory exceeded or user code exited)); last:"
        + " executor 3 on node1: killed by YARN for exceeding its virtual memory limit"), abort);
    assertEquals(Set.of(), amrm.excludedNodes);
  }

  /**
   * tide.executor.maxFailures unset, maxExecutors unbounded: the limit is twice the most
   * executors the application had at once (2 here), at least 3.
   */
  @Test
  void byDefaultTheFailureLimitFollowsTheMostExecutorsAtOnce() {
    bind(0, 0, Duration.ZERO);
    launchTwo("node1", "node2");
    for (int round = 0; round < 2; round++) {
      amrm.toComplete.add(TestContainers.completed(launched(2 * round), 1, "boom"));
      amrm.toComplete.add(TestContainers.completed(launched(2 * round + 1), 1, "boom"));
      nextHeartbeat();
      nextHeartbeat();
      grantOnNode1AndNode2();
    }
    assertEquals(List.of(), driver.aborts, "4 failures, the limit is 2 x 2");
    amrm.toComplete.add(TestContainers.completed(launched(4), 1, "boom"));
    nextHeartbeat();
    assertEquals(1, driver.aborts.size(), driver.exited::toString);
    assertTrue(driver.aborts.get(0).startsWith("5 executor failures in a row (no task succeeded"
        + " between them) within 3600 s (more than tide.executor.maxFailures = 4 (by default twice the most executors the application"
        + " had at once, 2, at least 3)"), driver.aborts::toString);
  }

  /**
   * Issue 16: executors killed one after another while the job still gets tasks done (the chaos
   * suite kills one every 3 s) do not end it; the same failures with no task succeeding between
   * them do.
   */
  @Test
  void failuresWithATaskSucceedingBetweenThemDoNotEndTheApplication() {
    bind(0, 0, Duration.ZERO);
    launchTwo("node1", "node2");
    for (int round = 0; round < 4; round++) {
      driver.tasksSucceeded += 5;
      amrm.toComplete.add(TestContainers.completed(launched(2 * round), 137, "killed"));
      nextHeartbeat();
      driver.tasksSucceeded += 5;
      amrm.toComplete.add(TestContainers.completed(launched(2 * round + 1), 137, "killed"));
      nextHeartbeat();
      grantOnNode1AndNode2();
    }
    assertEquals(8, driver.exited.size(), driver.exited::toString);
    assertEquals(List.of(), driver.aborts, "8 failures, more than the limit of 4, but each"
        + " after a task succeeded");

    // No task succeeds any more: the last failure and 3 more are 4 in a row, the next is 5.
    for (int n = 8; n < 11; n++) {
      amrm.toComplete.add(TestContainers.completed(launched(n), 137, "killed"));
      nextHeartbeat();
      if (n % 2 == 1) {
        grantOnNode1AndNode2();
      }
    }
    assertEquals(List.of(), driver.aborts, "4 in a row: not more than the limit");
    amrm.toComplete.add(TestContainers.completed(launched(11), 137, "killed"));
    nextHeartbeat();
    assertEquals(1, driver.aborts.size(), driver.exited::toString);
    assertTrue(driver.aborts.get(0).startsWith("5 executor failures in a row"),
        driver.aborts::toString);
  }

  @Test
  void failedLaunchIsReleasedAndCounted() {
    bind(1, 0, Duration.ZERO);
    allocator.requestTotalExecutors(1, 0, Map.of());
    step();
    Container bad = containers.container("node1", EXECUTOR);
    failToStart.add(bad.getId());
    amrm.toAllocate.add(bad);
    nextHeartbeat();

    assertEquals(Set.of(bad.getId()), amrm.released);
    assertEquals(List.of(), driver.launched);
    assertEquals(1, amrm.pendingAtLastHeartbeat, "a replacement is asked for at once");

    Container bad2 = containers.container("node1", EXECUTOR);
    failToStart.add(bad2.getId());
    amrm.toAllocate.add(bad2);
    nextHeartbeat();
    assertEquals(1, driver.aborts.size());
    assertTrue(driver.aborts.get(0).contains("NodeManager refused"), driver.aborts::toString);
  }

  @Test
  void localityHintsBecomeRequestsOnThoseNodes() {
    bind(3, 0, Duration.ZERO);
    // 4 tasks prefer node1, 2 tasks per executor: 2 executors there.
    allocator.requestTotalExecutors(3, 4, Map.of("node1", 4));
    step();
    assertEquals(3, amrm.pendingAtLastHeartbeat);
    assertEquals(2, amrm.pendingOn("node1"));
    // Hints change: the node1 requests are cancelled and placed on node2.
    allocator.requestTotalExecutors(3, 2, Map.of("node2", 2));
    step();
    assertEquals(1, amrm.pendingOn("node2"));
    assertEquals(0, amrm.pendingOn("node1"));
    assertEquals(3, amrm.pendingAtLastHeartbeat);
  }

  @Test
  void unregisteredExecutorIsReleasedAndReplacedAfterTheTimeout() {
    bind(3, 2, Duration.ofSeconds(60));
    launchTwo("node1", "node2");
    long launchedAt = clock.millis();
    driver.registered.add("2");
    nextHeartbeat();
    assertEquals(0, amrm.pendingAtLastHeartbeat);

    runUntil(launchedAt + 59_999);
    assertEquals(Set.of(), amrm.released, "not yet past tide.executor.registrationTimeout");

    // The next round (at most 3 s later) releases it and asks for a replacement at once.
    heartbeatMillis.clear();
    runFor(3_000);
    assertEquals(Set.of(launched(0).getId()), amrm.released, "the registered executor stays");
    assertTrue(heartbeatMillis.get(0) >= launchedAt + 60_000
        && heartbeatMillis.get(0) < launchedAt + 63_000, heartbeatMillis::toString);
    assertEquals(1, amrm.pendingAtLastHeartbeat, "replacement requested");
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("containerReleased")
        && e.contains("not registered in time")), driver.events::toString);
    amrm.toComplete.add(TestContainers.released(launched(0)));
    nextHeartbeat();
    assertEquals(1, driver.exited.size(), driver.exited::toString);
  }

  @Test
  void repeatedFailuresOnANodeExcludeItUntilTheTimeout() {
    amrm.clusterNodes = 3;
    bind(10, 2, Duration.ZERO);
    launchTwo("bad", "bad");

    amrm.toComplete.add(TestContainers.completed(launched(0), 1, "boom"));
    nextHeartbeat();
    assertEquals(1, driver.exited.size());
    assertEquals(Set.of(), amrm.excludedNodes, "1 failure is below tide.yarn.maxFailuresPerHost");
    amrm.toComplete.add(TestContainers.completed(launched(1), 1, "boom"));
    nextHeartbeat();
    assertEquals(Set.of("bad"), amrm.excludedNodes);
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("nodeExcluded node bad")),
        driver.events::toString);
    assertEquals(List.of(), driver.aborts);

    runFor(Duration.ofMinutes(10).toMillis() - 3_000);
    assertEquals(Set.of("bad"), amrm.excludedNodes, "not 10 min yet");
    runFor(3_000);
    assertEquals(Set.of(), amrm.excludedNodes, "exclusion ended");
  }

  /**
   * Issue 17 item 6: two executors killed on each node excluded every node, and the job sat
   * with no executor until an exclusion expired (10 min). Now the oldest exclusion is lifted
   * at once and the next container there starts an executor.
   */
  @Test
  void whenEveryNodeIsExcludedTheOldestIsLiftedAndTheJobGoesOn() {
    bindWantingTwoExecutors(2);
    failTwiceOn("node1");
    clock.advanceMillis(1_000);
    failTwiceOn("node2");
    nextHeartbeat();

    assertEquals(Set.of("node2"), amrm.excludedNodes, "node1's exclusion lifted");
    assertTrue(driver.events.stream().anyMatch(
        e -> e.startsWith("nodeExclusionLifted node node1 clusterNodes 2 excludedNodes 2")),
        driver.events::toString);
    assertEquals(2, amrm.pendingAtLastHeartbeat, "replacements requested");

    amrm.toAllocate.add(containers.container("node1", EXECUTOR));
    nextHeartbeat();
    assertTrue(driver.launched.contains("5@node1:7337"), driver.launched::toString);
    assertEquals(List.of(), driver.aborts);
  }

  @Test
  void theStatusSaysWhichNodesAreExcludedWhileExecutorsAreMissing() {
    bindWantingTwoExecutors(2);
    assertEquals("", allocator.waitingReason(), "nothing excluded");

    failTwiceOn("node1");
    assertEquals("nodes excluded node1 (executor failures)", allocator.waitingReason());
    failTwiceOn("node2");
    nextHeartbeat();
    assertEquals("nodes excluded node2 (executor failures); all 2 nodes were excluded, lifted"
        + " node1", allocator.waitingReason());

    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node1", EXECUTOR)));
    nextHeartbeat();
    assertEquals("", allocator.waitingReason(), "target met, nothing to explain");
  }

  @Test
  void exclusionsOfNodesTheRmReportsLostDoNotKeepOthersExcluded() {
    bindWantingTwoExecutors(3);
    failTwiceOn("gone");
    amrm.toUpdateNodes.add(NodeReport.newInstance(NodeId.newInstance("gone", 45454),
        NodeState.LOST, "gone:8042", "/rack1", null, null, 0, "lost", 0));
    amrm.clusterNodes = 2;
    clock.advanceMillis(1_000);
    failTwiceOn("node1");
    runFor(1_000);
    assertEquals(Set.of("gone", "node1"), amrm.excludedNodes, "node2 is still usable");

    clock.advanceMillis(1_000);
    failTwiceOn("node2");
    nextHeartbeat();
    assertEquals(Set.of("gone", "node2"), amrm.excludedNodes,
        "node1's exclusion lifted, not the lost node's");
  }

  @Test
  void failuresOlderThanTheValidityIntervalNoLongerCount() {
    bind(1, 2, Duration.ZERO);
    launchTwo("node1", "node2");

    amrm.toComplete.add(TestContainers.completed(launched(0), 1, "boom"));
    nextHeartbeat();
    assertEquals(1, driver.exited.size());
    clock.advanceMillis(Duration.ofHours(1).toMillis());
    amrm.toComplete.add(TestContainers.completed(launched(1), 1, "boom"));
    nextHeartbeat();
    assertEquals(2, driver.exited.size());
    runFor(1_000);
    assertEquals(List.of(), driver.aborts, "the first failure expired an hour later");
  }

  @Test
  void headroomCountsWholeExecutorsOfTheLastResponse() {
    allocator = create(3, 0, Duration.ZERO);
    assertEquals(0, allocator.grantableExecutors(), "unknown before the first heartbeat");
    allocator.bind(driver, launcher(new CallerRunsExecutorService()), () -> 0.5f);
    allocator.requestTotalExecutors(1, 0, Map.of());
    step();
    // The scripted RM reports 8192 MiB and 8 vcores: 10 by memory, 8 by cores.
    assertEquals(8, allocator.grantableExecutors());
    assertEquals(2, ResourceManagerHeartbeat.executorsThatFit(Resource.newInstance(2000, 64),
        EXECUTOR));
    assertEquals(0, ResourceManagerHeartbeat.executorsThatFit(Resource.newInstance(-512, 4),
        EXECUTOR));
  }

  /**
   * The cadence with the production intervals: 50 ms for a second after new requests while they
   * are pending, 200 ms while requests are pending, executors
   * starting or released containers not yet reported completed, doubling to 3 s when nothing
   * is, and a heartbeat at once when the target changes (not when it is declared unchanged) or
   * an executor is killed.
   */
  @Test
  void heartbeatsEvery200msWhilePendingBacksOffTo3sAndWakesOnANewTarget() {
    bind(3, 0, Duration.ZERO);

    // Nothing asked for: the first round at once, then 400, 800, 1600 ms, then every 3 s.
    runUntil(3_000);
    assertEquals(List.of(0L, 400L, 1_200L, 2_800L), heartbeatMillis, "backing off");
    heartbeatMillis.clear();
    allocator.requestTotalExecutors(0, 0, Map.of());
    runUntil(9_000);
    assertEquals(List.of(5_800L, 8_800L), heartbeatMillis,
        "every 3 s; an unchanged target wakes nothing");

    // A new target: a heartbeat at once, then every 50 ms for a second while its requests are
    // pending (the RM allocates at an NM heartbeat; the AM sees it at its own next one), then
    // every 200 ms.
    heartbeatMillis.clear();
    allocator.requestTotalExecutors(2, 0, Map.of());
    runUntil(10_600);
    assertEquals(concat(every(9_000, 10_000, 50), every(10_200, 10_600, 200)), heartbeatMillis);
    assertEquals(2, amrm.pendingAtLastHeartbeat);

    // Both granted at 10800: one more 200 ms round while they start, then backing off again.
    heartbeatMillis.clear();
    Container node1 = containers.container("node1", EXECUTOR);
    amrm.toAllocate.addAll(List.of(node1, containers.container("node2", EXECUTOR)));
    runUntil(14_000);
    assertEquals(2, driver.launched.size());
    assertEquals(List.of(10_800L, 11_000L, 11_400L, 12_200L, 13_800L), heartbeatMillis);

    // Woken at once by a new target, not at 13800 + 3200, and followed up every 50 ms.
    heartbeatMillis.clear();
    allocator.requestTotalExecutors(3, 0, Map.of());
    runUntil(14_200);
    assertEquals(every(14_000, 14_200, 50), heartbeatMillis);
    assertEquals(1, amrm.pendingAtLastHeartbeat);

    // Target 1 and one executor killed (as the driver removes an idle one): released at once,
    // then 200 ms rounds until the RM reports the container completed, then backing off again.
    allocator.requestTotalExecutors(1, 0, Map.of());
    runUntil(20_000);
    heartbeatMillis.clear();
    allocator.killExecutors(List.of("1"));
    runUntil(20_800);
    assertTrue(amrm.released.contains(node1.getId()));
    assertEquals(List.of(20_000L, 20_200L, 20_400L, 20_600L, 20_800L), heartbeatMillis,
        "200 ms while the release is not reported");
    heartbeatMillis.clear();
    amrm.toComplete.add(TestContainers.released(node1));
    runUntil(24_000);
    assertEquals(1, driver.exited.size(), driver.exited::toString);
    assertEquals(List.of(21_000L, 21_400L, 22_200L, 23_800L), heartbeatMillis);
  }

  @Test
  void fiveFailedHeartbeatsInARowAbortTheApplication() {
    bind(3, 0, Duration.ZERO);
    amrm.unreachableHeartbeats = 4;
    allocator.requestTotalExecutors(1, 0, Map.of());
    runFor(2_000);
    assertEquals(List.of(), driver.aborts, "4 in a row, then answered");
    assertEquals(1, amrm.pendingAtLastHeartbeat);

    amrm.unreachableHeartbeats = 5;
    runFor(1_000);
    assertEquals(List.of("lost contact with the ResourceManager after 5 failed heartbeats:"
        + " java.net.ConnectException: Connection refused"), driver.aborts);
  }

  @Test
  void anRmThatNoLongerKnowsTheAttemptAbortsTheApplication() {
    bind(3, 0, Duration.ZERO);
    amrm.attemptUnknown = true;
    step();
    assertEquals(List.of("the ResourceManager no longer knows this application attempt:"
        + " Application attempt " + TestContainers.ATTEMPT + " doesn't exist in"
        + " ApplicationMasterService cache."), driver.aborts);
  }

  /**
   * A killed application's attempt is gone from the RM before the NodeManager's SIGTERM reaches
   * the AM: the allocator reports that as such, once (the AM ends the job as killed when the RM
   * says the application was), not as a failed heartbeat to count.
   */
  @Test
  void anRmThatNoLongerKnowsTheAttemptIsReportedAsThatOnce() {
    bind(3, 0, Duration.ZERO);
    amrm.attemptUnknown = true;
    step();
    step();
    String expected = "the ResourceManager no longer knows this application attempt:"
        + " Application attempt " + TestContainers.ATTEMPT + " doesn't exist in"
        + " ApplicationMasterService cache.";
    assertEquals(List.of(expected), driver.attemptsGone);
    assertEquals(List.of(expected), driver.aborts, "the default: abort");
  }

  /**
   * Issue 15: an exception in a round used to kill the allocator thread silently; the job then
   * waited for the RM to expire the AM. Now it aborts the application with that cause, and the
   * allocator stops: no more heartbeats.
   */
  @Test
  void aRoundThatThrowsAbortsTheApplicationWithThatCause() {
    bind(3, 0, Duration.ZERO);
    launchTwo("node1", "node2");
    amrm.refuseRequestsWith = "Cannot submit a ContainerRequest asking for location node1 with"
        + " locality relaxation true when it has already been requested with locality"
        + " relaxation false";

    allocator.requestTotalExecutors(3, 0, Map.of());
    step();

    assertEquals(1, driver.aborts.size(), "aborted at once");
    String abort = driver.aborts.get(0);
    assertTrue(abort.startsWith("the YARN allocator failed: org.apache.hadoop.yarn.client.api"
        + ".InvalidContainerRequestException: Cannot submit a ContainerRequest asking for"
        + " location node1"), abort);
    assertTrue(abort.contains("(at dev.tide.am.yarn.YarnAllocatorTest$ScriptedAmrmClient"
        + ".addContainerRequest("), abort);
    int heartbeats = amrm.heartbeats;
    assertEquals(YarnAllocator.FAILED, allocator.runDue());
    allocator.requestTotalExecutors(4, 0, Map.of());
    runFor(10_000);
    assertEquals(heartbeats, amrm.heartbeats, "the allocator stopped");
    assertEquals(1, driver.aborts.size());
  }

  @Test
  void anErrorInTheHeartbeatAbortsTheApplicationWithThatCause() {
    bind(3, 0, Duration.ZERO);
    amrm.failNextHeartbeatWith = "'long org.apache.hadoop.yarn.api.records.Resource"
        + ".getMemorySize()'";

    allocator.requestTotalExecutors(1, 0, Map.of());
    step();

    assertEquals(1, driver.aborts.size());
    assertTrue(driver.aborts.get(0).startsWith("the YARN allocator failed:"
        + " java.lang.NoSuchMethodError: 'long org.apache.hadoop.yarn.api.records.Resource"
        + ".getMemorySize()' (at dev.tide.am.yarn.YarnAllocatorTest$ScriptedAmrmClient.allocate("),
        driver.aborts::toString);
  }

  /** A task posted to the allocator (here a launch result the driver fails on) as well. */
  @Test
  void aMailboxTaskThatThrowsAbortsTheApplicationWithThatCause() {
    bind(3, 0, Duration.ZERO);
    allocator.requestTotalExecutors(1, 0, Map.of());
    step();
    driver.failLaunched = true;
    amrm.toAllocate.add(containers.container("node1", EXECUTOR));
    nextHeartbeat();

    assertEquals(1, driver.aborts.size());
    String abort = driver.aborts.get(0);
    assertTrue(abort.startsWith("the YARN allocator failed: java.lang.IllegalStateException:"
        + " driver loop shut down (at dev.tide.am.yarn.YarnAllocatorTest$RecordingDriver"
        + ".executorLaunched("), abort);
    assertTrue(abort.endsWith("; caused by java.util.concurrent.RejectedExecutionException:"
        + " event loop terminated"), abort);
  }

  /**
   * On the allocator's own thread: an Error in a heartbeat aborts the application, and the
   * thread releases every container (with a last heartbeat) before it ends.
   */
  @Test
  void onItsThreadAnErrorAbortsTheApplicationAndReleasesTheContainers() {
    List<ContainerId> running = ids(startThreadWithTwoExecutors());

    amrm.failNextHeartbeatWith = "'java.util.List org.apache.hadoop.yarn.api.protocolrecords"
        + ".AllocateResponse.getUpdatedContainers()'";
    await("aborted", () -> driver.aborts.size() == 1);
    assertTrue(driver.aborts.get(0).startsWith("the YARN allocator failed:"
        + " java.lang.NoSuchMethodError: 'java.util.List"), driver.aborts::toString);
    await("both containers released", () -> amrm.released.equals(Set.copyOf(running)));
  }

  @Test
  void stopReleasesEveryContainer() throws Exception {
    List<ContainerId> running = ids(startThreadWithTwoExecutors());

    allocator.stop(DEADLINE);

    assertEquals(Set.copyOf(running), amrm.released);
  }

  /**
   * An executor that died just before the application ended (the driver saw its connection
   * close) is reported complete by the RM only a few heartbeats later: stopping waits for that
   * report, so its exit (out of heap) is logged and counted, and releases only the other.
   */
  @Test
  void stopWaitsForTheExitOfAnExecutorTheDriverSawGo() throws Exception {
    List<Container> running = startThreadWithTwoExecutors();
    Container dead = running.get(0);
    Container alive = running.get(1);
    String deadId = driver.events.stream()
        .filter(e -> e.startsWith("executorLaunched ") && e.contains(dead.getId().toString()))
        .findFirst().orElseThrow().split(" ")[2];

    driver.gone.add(deadId);
    amrm.completeLaterAt = amrm.heartbeats + 4;
    amrm.toCompleteLater.add(TestContainers.completed(dead,
        ExitStatusClassifier.EXECUTOR_OUT_OF_MEMORY, "Exception from container-launch."));
    allocator.stop(DEADLINE);

    String completion = driver.events.stream()
        .filter(e -> e.startsWith("containerCompleted container " + dead.getId()))
        .findFirst().orElseThrow(() -> new AssertionError(driver.events.toString()));
    assertTrue(completion.contains(" executor " + deadId + " exitStatus 52 released false"
        + " failure true diagnostics ") && completion.contains("ran out of heap"), completion);
    assertTrue(driver.exited.stream().anyMatch(e -> e.startsWith(deadId + " failed: ")),
        driver.exited::toString);
    assertEquals(Set.of(alive.getId()), amrm.released);
  }

  /** The allocator on its own thread, two executors launched; their containers. */
  private List<Container> startThreadWithTwoExecutors() {
    startThread(3);
    allocator.requestTotalExecutors(2, 0, Map.of());
    await("2 pending", () -> amrm.pendingAtLastHeartbeat == 2);
    Container a = containers.container("node1", EXECUTOR);
    Container b = containers.container("node2", EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    await("2 launched", () -> driver.launched.size() == 2);
    return List.of(a, b);
  }

  private static List<ContainerId> ids(List<Container> containers) {
    return containers.stream().map(Container::getId).toList();
  }

  /** A node report of {@code host} in {@code state}, with a decommissioning timeout. */
  private static NodeReport nodeReport(String host, NodeState state, Integer timeoutSeconds) {
    NodeReport report = NodeReport.newInstance(NodeId.newInstance(host, 45454), state,
        host + ":8042", "/rack1", Resource.newInstance(0, 0), Resource.newInstance(8192, 8), 0,
        "", 0L);
    report.setDecommissioningTimeout(timeoutSeconds);
    return report;
  }

  /**
   * Issue 36: a node the RM reports DECOMMISSIONING gets no new executor (a container granted
   * there is released and asked for again, locality hints for it are dropped), the driver hears
   * when it leaves; DECOMMISSIONED then tells the driver it is gone; each change is logged once.
   */
  @Test
  void aDecommissioningNodeGetsNoNewExecutorAndTheDriverHearsWhenItLeaves() {
    bind(3, 0, Duration.ZERO);
    launchTwo("node1", "node2");
    clock.advanceMillis(1_000);
    long now = clock.millis();
    amrm.toUpdateNodes.add(nodeReport("node2", NodeState.DECOMMISSIONING, 60));
    nextHeartbeat();
    assertEquals(List.of("decommissioning node2 " + (now + 60_000)), driver.nodesAndPreemptions);
    assertEquals(1, driver.events.stream()
        .filter(e -> e.startsWith("nodeDecommissioning node node2 ")).count());

    allocator.requestTotalExecutors(3, 2, Map.of("node2", 2));
    step();
    assertEquals(0, amrm.pendingOn("node2"), "no request names the leaving node");
    assertEquals(1, amrm.pendingAtLastHeartbeat);
    Container onLeaving = containers.container("node2", EXECUTOR);
    amrm.toAllocate.add(onLeaving);
    nextHeartbeat();
    assertTrue(amrm.released.contains(onLeaving.getId()), "granted there, released");
    assertEquals(2, driver.launched.size(), driver.launched::toString);
    nextHeartbeat();
    assertEquals(1, amrm.pendingAtLastHeartbeat, "asked again, elsewhere");

    amrm.toUpdateNodes.add(nodeReport("node2", NodeState.DECOMMISSIONING, 60));
    amrm.toUpdateNodes.add(nodeReport("node2", NodeState.DECOMMISSIONED, null));
    nextHeartbeat();
    assertEquals(List.of("decommissioning node2 " + (now + 60_000), "lost node2"),
        driver.nodesAndPreemptions, "each change once");
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("nodeLost node node2 ")
        && e.contains("DECOMMISSIONED")), driver.events::toString);
  }

  @Test
  void lostAndUnhealthyNodesAreGoneAndARecommissionedNodeRunsAgain() {
    bind(3, 0, Duration.ZERO);
    amrm.toUpdateNodes.add(nodeReport("node1", NodeState.LOST, null));
    amrm.toUpdateNodes.add(nodeReport("node3", NodeState.UNHEALTHY, null));
    amrm.toUpdateNodes.add(nodeReport("node2", NodeState.DECOMMISSIONING, null));
    step();
    amrm.toUpdateNodes.add(nodeReport("node2", NodeState.RUNNING, null));
    nextHeartbeat();
    assertEquals(List.of("lost node1", "lost node3", "decommissioning node2 -1",
        "running node2"), driver.nodesAndPreemptions);
  }

  /**
   * Issue 36: under a negotiable preemption contract the AM gives back what YARN wants, idle
   * executors first, then those whose tasks started last; the released containers are no
   * failures; an unchanged message is not answered twice.
   */
  @Test
  void preemptionGivesBackIdleExecutorsFirstAndCountsNoFailure() {
    bind(1, 1, Duration.ZERO);
    allocator.requestTotalExecutors(3, 0, Map.of());
    step();
    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR), containers.container("node1", EXECUTOR)));
    nextHeartbeat();
    assertEquals(3, driver.launched.size());
    driver.activity = List.of(new ExecutorActivity("1", 1, 500, 0),
        new ExecutorActivity("2", 0, 0, 300), new ExecutorActivity("3", 1, 900, 0));
    ResourceRequest wanted = ResourceRequest.newInstance(TestContainers.PRIORITY,
        ResourceRequest.ANY, EXECUTOR, 2);
    amrm.preemption = PreemptionMessage.newInstance(null, PreemptionContract.newInstance(
        List.of(PreemptionResourceRequest.newInstance(wanted)),
        Set.of(PreemptionContainer.newInstance(started.get(0)))));
    nextHeartbeat();
    // Executor 1's container is the one the contract names: the RM kills it anyway while its
    // demand lasts, so it goes before executor 3, whose task started last (issue 36: on the
    // multi-process cluster the named ones were killed after others had been given back).
    assertEquals(Set.of(started.get(1), started.get(0)), Set.copyOf(amrm.released),
        "the idle executor 2, then executor 1, in the container the contract names");
    assertEquals(List.of("preempted 2", "preempted 1"), driver.nodesAndPreemptions);
    nextHeartbeat();
    assertEquals(2, amrm.released.size(), "the same message is not answered twice");

    amrm.preemption = null;
    amrm.toComplete.addAll(List.of(TestContainers.released(launched(1)),
        TestContainers.released(launched(0))));
    nextHeartbeat();
    assertEquals(List.of(), driver.aborts);
    assertTrue(driver.exited.stream().noneMatch(e -> e.contains(" failed: ")),
        driver.exited::toString);
    assertEquals(2, driver.events.stream().filter(e -> e.startsWith("executorPreempted ")
        && e.contains("given back")).count(), driver.events::toString);
  }

  @Test
  void strictContractBusyExecutorsDrainIdleOnesAreGivenBack() {
    bind(1, 1, Duration.ZERO);
    launchTwo("node1", "node2");
    driver.activity = List.of(new ExecutorActivity("1", 2, 500, 0),
        new ExecutorActivity("2", 0, 0, 300));
    amrm.preemption = PreemptionMessage.newInstance(StrictPreemptionContract.newInstance(
        Set.of(PreemptionContainer.newInstance(started.get(0)),
            PreemptionContainer.newInstance(started.get(1)))), null);
    nextHeartbeat();
    assertEquals(Set.of(started.get(1)), Set.copyOf(amrm.released));
    assertEquals(Set.of("preempted 1", "preempted 2"), Set.copyOf(driver.nodesAndPreemptions));
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("executorPreempted executor 1")
        && e.contains("draining")), driver.events::toString);

    amrm.preemption = null;
    amrm.toComplete.add(TestContainers.completed(launched(0), ContainerExitStatus.PREEMPTED,
        ""));
    nextHeartbeat();
    assertEquals(List.of(), driver.aborts);
    assertTrue(driver.events.stream().anyMatch(e -> e.startsWith("executorPreempted executor 1")
        && e.contains("stopped by YARN")), driver.events::toString);
  }

  /** Target 2, two containers on these hosts granted and their executors launched. */
  private void launchTwo(String host1, String host2) {
    allocator.requestTotalExecutors(2, 0, Map.of());
    step();
    assertEquals(2, amrm.pendingAtLastHeartbeat);
    amrm.toAllocate.addAll(List.of(containers.container(host1, EXECUTOR),
        containers.container(host2, EXECUTOR)));
    nextHeartbeat();
    assertEquals(2, driver.launched.size(), driver.launched::toString);
  }

  /** The RM grants one container on node1 and one on node2, seen at the next heartbeat. */
  private void grantOnNode1AndNode2() {
    amrm.toAllocate.addAll(List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR)));
    nextHeartbeat();
  }

  /** The container of the {@code index}-th launched executor (0-based). */
  private Container launched(int index) {
    ContainerId id = started.get(index);
    for (String event : driver.events) {
      if (event.startsWith("containerAllocated container " + id + " ")) {
        String host = event.split(" ")[4];
        return Container.newInstance(id, NodeId.newInstance(host, 45454), host + ":8042",
            EXECUTOR, TestContainers.PRIORITY, null);
      }
    }
    throw new AssertionError("no container " + id + " in " + driver.events);
  }

  /**
   * Failures count for 1 h, 2 of them exclude a node, a cluster of {@code clusterNodes} as the
   * RM reports it, target 2 and its requests pending.
   */
  private void bindWantingTwoExecutors(int clusterNodes) {
    amrm.clusterNodes = clusterNodes;
    bind(10, 2, Duration.ZERO);
    allocator.requestTotalExecutors(2, 0, Map.of());
    step();
    assertEquals(2, amrm.pendingAtLastHeartbeat);
  }

  /** Two executors on {@code node} fail: the node is excluded (2 failures per node). */
  private void failTwiceOn(String node) {
    int launchedBefore = driver.launched.size();
    Container a = containers.container(node, EXECUTOR);
    Container b = containers.container(node, EXECUTOR);
    amrm.toAllocate.addAll(List.of(a, b));
    nextHeartbeat();
    assertEquals(launchedBefore + 2, driver.launched.size(), "2 launched on " + node);
    int exitedBefore = driver.exited.size();
    amrm.toComplete.addAll(List.of(TestContainers.completed(a, 1, "boom"),
        TestContainers.completed(b, 1, "boom")));
    nextHeartbeat();
    assertEquals(exitedBefore + 2, driver.exited.size(), "2 failures on " + node);
    assertTrue(driver.events.stream()
        .anyMatch(e -> e.startsWith("nodeExcluded node " + node + " ")), node + " excluded");
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

  /** Polls with a deadline, for the tests that run the allocator's own thread. */
  private static void await(String what, BooleanSupplier condition) {
    Await.until(DEADLINE, what, condition::getAsBoolean);
  }
}
