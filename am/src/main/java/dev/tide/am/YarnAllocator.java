package dev.tide.am;

import dev.tide.am.ExecutorRequests.Assignment;
import dev.tide.am.ExecutorRequests.Demand;
import dev.tide.am.ExecutorRequests.RequestDelta;
import dev.tide.am.ExecutorLauncher.LaunchFailed;
import dev.tide.am.ExecutorLauncher.LaunchResult;
import dev.tide.am.ExecutorLauncher.Launched;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The YARN side of executor allocation: turns the driver's declared target into container
 * requests, launches executors on allocated containers, releases killed and surplus containers,
 * and reports how containers ended.
 *
 * <p>Threading: one thread ({@code tide-allocator}) owns all state and the AMRM client. It
 * heartbeats to the RM every 200 ms while requests are pending (or executors are starting, or
 * released containers are not yet reported completed), backing off to 3 s when nothing is.
 * {@link #requestTotalExecutors} and {@link #killExecutors} (any thread) and launch results
 * (launcher threads) only post a task to that thread and wake it; they return at once.
 *
 * <p>Each round: end node exclusions that have expired, release executors that did not
 * register in time (launch watchdog), lift the oldest exclusion if every node is excluded while
 * executors are wanted, reconcile (cancel requests that no longer fit the hints, then add or
 * cancel so that pending + running + starting = target), heartbeat, then handle
 * allocated containers (launch what is still wanted and remove its request, release the
 * surplus at once) and completed containers (classify, tell the driver, count failures).
 *
 * <p>Failures count within {@code tide.executor.failuresValidityInterval}; past
 * {@code tide.executor.maxFailures} of them the driver is aborted with the cause; a node with
 * {@code tide.yarn.maxFailuresPerHost} of them is excluded (YARN blacklist) for
 * {@code tide.yarn.hostExclusionTimeout}, unless that would leave no node the application may
 * use ({@link ExecutorFailures#liftOldestIfAllExcluded}; the cluster's nodes are those the RM
 * counts in each allocate response, less those it reports unusable). Nodes are named as the RM
 * names them: host, or host:port with {@code yarn.scheduler.include-port-in-node-name}.
 */
public final class YarnAllocator implements ExecutorAllocationClient {
  private static final Logger LOG = LoggerFactory.getLogger(YarnAllocator.class);
  /** Consecutive failed heartbeats before the application is aborted. */
  private static final int MAX_HEARTBEAT_FAILURES = 5;

  private enum State { STARTING, RUNNING, RELEASING }

  /**
   * The allocator's settings.
   *
   * @param registrationTimeout how long a launched executor may take to register with the
   *     driver before its container is released and replaced; zero turns the watchdog off
   * @param nodeNamesIncludePort whether the RM names nodes host:port
   *     ({@code yarn.scheduler.include-port-in-node-name}); node exclusion and failure counts
   *     use the RM's node names
   * @param clockMillis wall-clock time for failure windows, exclusions and the watchdog
   */
  public record Settings(Resource executorResource, int maxFailures,
      Duration failuresValidity, int maxFailuresPerNode, Duration nodeExclusionTimeout,
      Duration registrationTimeout, Duration fastInterval, Duration slowInterval,
      boolean nodeNamesIncludePort, LongSupplier clockMillis) {}

  /** An executor's container, from assignment to completion. Allocator thread only. */
  private static final class ExecutorContainer {
    final String executorId;
    final Container container;
    State state = State.STARTING;
    boolean reportedToDriver;
    boolean registered;
    long launchedAtMillis;

    ExecutorContainer(String executorId, Container container) {
      this.executorId = executorId;
      this.container = container;
    }

    String host() {
      return container.getNodeId().getHost();
    }
  }

  private final AMRMClient<ContainerRequest> amrmClient;
  private final ExecutorRequests reconciler;
  private final ContainerOutcomeClassifier classifier;
  private final Settings settings;
  private final NodeExclusions exclusions;
  private final long fastIntervalMs;
  private final long slowIntervalMs;
  private final BlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();
  private final Thread thread;
  /** Monotonic time for the heartbeat cadence ({@code System::nanoTime}; manual in tests). */
  private final LongSupplier nanoClock;

  // Everything below is owned by the allocator thread (or written before it starts).
  private DriverCallbacks driver;
  private ExecutorLauncher launcher;
  private Supplier<Float> progress;
  private int targetExecutors;
  private int loggedTarget;
  private int localityAwareTasks;
  private Map<String, Integer> hostToLocalTaskCount = Map.of();
  private final Map<ContainerId, ExecutorContainer> byContainer = new LinkedHashMap<>();
  private final Map<String, ExecutorContainer> byExecutor = new HashMap<>();
  /** Containers released by the AM whose completion has not arrived yet. */
  private final Set<ContainerId> releasedContainers = new HashSet<>();
  private boolean aborted;
  /** Executors the queue could still grant, from the last allocate response. */
  private volatile int grantableExecutors;
  /** Why wanted executors are missing, for the status; "" when none are or no reason is known. */
  private volatile String waitingReason = "";
  private int nextExecutorId = 1;
  private int heartbeatFailures;
  private long currentIntervalMs;
  private long nextHeartbeatNanos;
  private boolean wakeRequested = true;
  private volatile boolean stopping;
  /** Containers released since the last round's log line (kills between rounds included). */
  private int releasedThisRound;

  /**
   * @param amrmClient a started client, registered with the RM; from now on used only by the
   *     allocator thread
   * @param fastInterval heartbeat interval while requests are pending (200 ms in production)
   * @param slowInterval the longest interval when nothing is pending (3 s in production)
   */
  public YarnAllocator(AMRMClient<ContainerRequest> amrmClient,
      ContainerRequestReconciler reconciler, ContainerOutcomeClassifier classifier,
      int maxFailures, Duration fastInterval, Duration slowInterval) {
    this(amrmClient, reconciler, classifier, new Settings(reconciler.executorResource(),
        maxFailures, Duration.ofHours(1), 0, Duration.ofMinutes(10), Duration.ZERO,
        fastInterval, slowInterval, false, System::currentTimeMillis));
  }

  /**
   * @param amrmClient a started client, registered with the RM; from now on used only by the
   *     allocator thread
   * @param requests how executors are asked for (container requests or a scheduling request)
   */
  public YarnAllocator(AMRMClient<ContainerRequest> amrmClient, ExecutorRequests requests,
      ContainerOutcomeClassifier classifier, Settings settings) {
    this(amrmClient, requests, classifier, settings, System::nanoTime);
  }

  /** @param nanoClock monotonic nanoseconds for the heartbeat cadence (tests: a manual clock) */
  YarnAllocator(AMRMClient<ContainerRequest> amrmClient, ExecutorRequests requests,
      ContainerOutcomeClassifier classifier, Settings settings, LongSupplier nanoClock) {
    this.amrmClient = amrmClient;
    this.nanoClock = nanoClock;
    this.reconciler = requests;
    this.classifier = classifier;
    this.settings = settings;
    this.exclusions = new NodeExclusions(amrmClient, settings, this::nodeName,
        (name, fields) -> driver.logEvent(name, fields));
    this.fastIntervalMs = settings.fastInterval().toMillis();
    this.slowIntervalMs = Math.max(fastIntervalMs, settings.slowInterval().toMillis());
    this.currentIntervalMs = fastIntervalMs;
    this.thread = new Thread(this::runLoop, "tide-allocator");
    this.thread.setDaemon(true);
  }

  /**
   * Starts the allocator thread. Requests posted before are served from the first round.
   *
   * @param progress the application's progress (0..1) reported on each heartbeat
   */
  public void start(DriverCallbacks driver, ExecutorLauncher launcher, Supplier<Float> progress) {
    bind(driver, launcher, progress);
    thread.start();
  }

  /**
   * Sets the collaborators without starting the thread; tests then drive the loop with
   * {@link #runDue()} on their own thread.
   */
  void bind(DriverCallbacks driver, ExecutorLauncher launcher, Supplier<Float> progress) {
    this.driver = driver;
    this.launcher = launcher;
    this.progress = progress;
    this.nextHeartbeatNanos = nanoClock.getAsLong();
  }

  @Override
  public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount) {
    Map<String, Integer> hints = Map.copyOf(hostToLocalTaskCount);
    mailbox.add(() -> {
      if (targetExecutors != this.targetExecutors || !hints.equals(this.hostToLocalTaskCount)) {
        wakeRequested = true;
      }
      this.targetExecutors = Math.max(0, targetExecutors);
      this.localityAwareTasks = localityAwareTasks;
      this.hostToLocalTaskCount = hints;
    });
  }

  /**
   * Executors of this application's container size the queue could still grant now, from the
   * last allocate response's available resources (memory and vcores), rounded down; 0 before
   * the first response. Any thread; never blocks (a volatile read).
   */
  @Override
  public int grantableExecutors() {
    return grantableExecutors;
  }

  /**
   * Why executors the driver wants are not running, for the job status: the nodes excluded for
   * executor failures and an exclusion lifted because all were; empty when no executor is
   * missing or none of that applies. Any thread; never blocks (a volatile read).
   */
  public String waitingReason() {
    return waitingReason;
  }

  static int executorsThatFit(Resource available, Resource executor) {
    if (available == null || executor == null) {
      return 0;
    }
    long byMemory = executor.getMemorySize() <= 0 ? Long.MAX_VALUE
        : available.getMemorySize() / executor.getMemorySize();
    long byCores = executor.getVirtualCores() <= 0 ? Long.MAX_VALUE
        : available.getVirtualCores() / executor.getVirtualCores();
    long fit = Math.min(byMemory, byCores);
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE - 1, fit));
  }

  @Override
  public void killExecutors(Collection<String> executorIds) {
    List<String> ids = List.copyOf(executorIds);
    mailbox.add(() -> {
      for (String id : ids) {
        ExecutorContainer executor = byExecutor.get(id);
        if (executor == null || executor.state == State.RELEASING) {
          LOG.debug("Kill of executor {} ignored: not running", id);
          continue;
        }
        release(executor.container, "executor " + id + " killed by the driver");
        executor.state = State.RELEASING;
      }
      wakeRequested = true;
    });
  }

  /**
   * Stops the allocator thread and releases every container still held, with one last
   * heartbeat so the RM learns of it. Waits at most {@code timeout}. Safe to call twice.
   */
  public void stop(Duration timeout) throws InterruptedException {
    if (!thread.isAlive()) {
      return;
    }
    stopping = true;
    mailbox.add(() -> {});
    thread.join(timeout.toMillis());
    if (thread.isAlive()) {
      LOG.warn("Allocator thread did not stop within {} ms", timeout.toMillis());
    }
  }

  private void runLoop() {
    try {
      while (!stopping) {
        long wait = runDue();
        if (wait > 0) {
          // A posted task (a new target, a kill, a launch result) ends the wait early.
          Runnable task = mailbox.poll(wait, TimeUnit.NANOSECONDS);
          if (task != null) {
            runTask(task);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      releaseAll();
    }
  }

  /**
   * One pass of the allocator loop, on the allocator thread (or a test's, after {@link #bind}):
   * runs the posted tasks, then a round if one is due: woken (the target or hints changed, an
   * executor was killed or failed to launch) or the interval since the last round has passed.
   *
   * @return nanoseconds until the next round is due; 0 right after a round, so that what the
   *     round itself posted or woke is served before waiting
   */
  long runDue() {
    Runnable task;
    while ((task = mailbox.poll()) != null) {
      runTask(task);
    }
    long now = nanoClock.getAsLong();
    if (wakeRequested || now - nextHeartbeatNanos >= 0) {
      wakeRequested = false;
      round();
      waitingReason = exclusions.describeWaiting(
          targetExecutors > count(State.RUNNING) + count(State.STARTING));
      nextHeartbeatNanos = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(nextInterval());
      return 0;
    }
    return nextHeartbeatNanos - now;
  }

  private void runTask(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("Allocator task failed", e);
    }
  }

  /**
   * 200 ms while anything is pending, starting or released but not yet reported completed (the
   * RM reports a released container on the heartbeat after the release), else doubling up to
   * the slow interval.
   */
  private long nextInterval() {
    if (reconciler.pendingRequests() > 0 || count(State.STARTING) > 0
        || count(State.RELEASING) > 0) {
      currentIntervalMs = fastIntervalMs;
    } else {
      currentIntervalMs = Math.min(slowIntervalMs, currentIntervalMs * 2);
    }
    return currentIntervalMs;
  }

  private void round() {
    exclusions.endExpired();
    releaseUnregistered();
    int running = count(State.RUNNING);
    int starting = count(State.STARTING);
    if (targetExecutors > running + starting) {
      exclusions.liftIfNoNodeLeft(targetExecutors, running + starting);
    }
    RequestDelta delta = reconciler.reconcile(new Demand(targetExecutors, running, starting,
        localityAwareTasks, hostToLocalTaskCount, containersPerNode()));
    if (delta.changed()) {
      currentIntervalMs = fastIntervalMs;
    }
    AllocateResponse response;
    try {
      response = amrmClient.allocate(currentProgress());
      heartbeatFailures = 0;
      if (response.getAvailableResources() != null) {
        grantableExecutors = executorsThatFit(response.getAvailableResources(),
            settings.executorResource());
      }
      exclusions.noteClusterNodes(response);
    } catch (ApplicationAttemptNotFoundException e) {
      abortOnce("the ResourceManager no longer knows this application attempt: "
          + e.getMessage());
      logRound(delta, 0);
      return;
    } catch (Exception e) {
      heartbeatFailures++;
      LOG.warn("Heartbeat to the ResourceManager failed ({} in a row)", heartbeatFailures, e);
      if (heartbeatFailures >= MAX_HEARTBEAT_FAILURES) {
        abortOnce("lost contact with the ResourceManager after " + heartbeatFailures
            + " failed heartbeats: " + e);
      }
      logRound(delta, 0);
      return;
    }
    int launched = handleAllocated(response.getAllocatedContainers());
    handleCompleted(response.getCompletedContainersStatuses());
    logRound(delta, launched);
  }

  private void logRound(RequestDelta delta, int launched) {
    if (delta.changed() || releasedThisRound > 0 || launched > 0
        || loggedTarget != targetExecutors) {
      LOG.info("target {} -> {}: requested {} ({} local to {} hosts), cancelled {}, released {},"
          + " launching {} (pending {}, starting {}, running {})", loggedTarget, targetExecutors,
          delta.requested(), delta.localRequests(), delta.localHosts(), delta.cancelled(),
          releasedThisRound, launched,
          reconciler.pendingRequests(), count(State.STARTING), count(State.RUNNING));
      loggedTarget = targetExecutors;
    }
    // Counted since the last line, so kills released between rounds are in it too.
    releasedThisRound = 0;
  }

  private int handleAllocated(List<Container> allocated) {
    if (allocated.isEmpty()) {
      return 0;
    }
    for (Container container : allocated) {
      driver.logEvent("containerAllocated", "container", container.getId().toString(),
          "host", container.getNodeId().getHost(), "node", nodeName(container.getNodeId()));
    }
    int existing = count(State.RUNNING) + count(State.STARTING);
    Assignment assignment = reconciler.assign(allocated, targetExecutors, existing);
    for (Container surplus : assignment.surplus()) {
      release(surplus, "surplus: target " + targetExecutors + " already met");
    }
    for (Container container : assignment.toLaunch()) {
      String executorId = Integer.toString(nextExecutorId++);
      ExecutorContainer executor = new ExecutorContainer(executorId, container);
      byContainer.put(container.getId(), executor);
      byExecutor.put(executorId, executor);
      LOG.debug("Launching executor {} in container {} on {}", executorId, container.getId(),
          container.getNodeId());
      launcher.launch(executorId, container, result -> mailbox.add(() -> onLaunchResult(result)));
    }
    return assignment.toLaunch().size();
  }

  private void onLaunchResult(LaunchResult result) {
    ExecutorContainer executor = byContainer.get(result.container().getId());
    if (executor == null || executor.state != State.STARTING) {
      LOG.debug("Launch result for executor {} ignored: container {} already gone",
          result.executorId(), result.container().getId());
      return;
    }
    if (result instanceof Launched launched) {
      executor.state = State.RUNNING;
      executor.reportedToDriver = true;
      executor.launchedAtMillis = settings.clockMillis().getAsLong();
      driver.logEvent("executorLaunched", "executor", executor.executorId, "container",
          executor.container.getId().toString(), "host", executor.host(), "shufflePort",
          launched.shufflePort(), "node",
          nodeName(executor.container.getNodeId()), "nodeHttp",
          executor.container.getNodeHttpAddress());
      driver.executorLaunched(executor.executorId, executor.host(), launched.shufflePort());
    } else if (result instanceof LaunchFailed failed) {
      release(executor.container, "launch failed");
      executor.state = State.RELEASING;
      countFailure(executor, failed.diagnostics());
      wakeRequested = true;
    }
  }

  private void handleCompleted(List<ContainerStatus> statuses) {
    for (ContainerStatus status : statuses) {
      ContainerId id = status.getContainerId();
      ExecutorContainer executor = byContainer.remove(id);
      boolean released = releasedContainers.remove(id)
          || (executor != null && executor.state == State.RELEASING);
      ContainerOutcome outcome =
          classifier.classify(status.getExitStatus(), status.getDiagnostics(), released);
      String executorId = executor == null ? "" : executor.executorId;
      driver.logEvent("containerCompleted", "container", id.toString(), "executor", executorId,
          "exitStatus", status.getExitStatus(), "released",
          released, "failure", outcome.failure(),
          "diagnostics", outcome.diagnostics());
      if (executor == null) {
        LOG.debug("Container {} (no executor) completed: {}", id, outcome.diagnostics());
        continue;
      }
      byExecutor.remove(executorId);
      if (outcome.failure()) {
        LOG.warn("Executor {} in container {} on {} ended: {}", executorId, id, executor.host(),
            outcome.diagnostics());
      } else {
        LOG.debug("Executor {} in container {} ended: {}", executorId, id, outcome.diagnostics());
      }
      // Counted before the driver hears of it: whoever learns of the exit from the driver
      // (a test's clock, a later decision) sees the failure already stamped.
      if (outcome.kind() == ContainerOutcome.Kind.MEMORY_EXCEEDED) {
        // The job's memory settings caused it, not the node: counted, but no node exclusion.
        judge(exclusions.failureNotAgainstNode(), executor, outcome.diagnostics());
      } else if (outcome.failure()) {
        countFailure(executor, outcome.diagnostics());
      }
      if (executor.reportedToDriver) {
        driver.executorExited(executorId, outcome.failure(), outcome.diagnostics());
      }
    }
  }

  private void countFailure(ExecutorContainer executor, String diagnostics) {
    String node = nodeName(executor.container.getNodeId());
    judge(exclusions.failure(node), executor, diagnostics);
  }

  /** Aborts the application once too many executor failures count. */
  private void judge(ExecutorFailures.Verdict verdict, ExecutorContainer executor,
      String diagnostics) {
    String node = nodeName(executor.container.getNodeId());
    if (verdict.tooMany()) {
      abortOnce(verdict.recentFailures() + " executor failures within "
          + settings.failuresValidity().toSeconds() + " s (more than tide.executor.maxFailures"
          + " = " + settings.maxFailures() + "; per node " + verdict.perNode()
          + "); last: executor " + executor.executorId + " on " + node + ": " + diagnostics);
    }
  }

  /** The launch watchdog: see {@link DriverCallbacks#isExecutorRegistered}. */
  private void releaseUnregistered() {
    long timeout = settings.registrationTimeout().toMillis();
    if (timeout <= 0) {
      return;
    }
    long now = settings.clockMillis().getAsLong();
    for (ExecutorContainer executor : new ArrayList<>(byContainer.values())) {
      if (executor.state != State.RUNNING || executor.registered) {
        continue;
      }
      if (driver.isExecutorRegistered(executor.executorId)) {
        executor.registered = true;
      } else if (now - executor.launchedAtMillis >= timeout) {
        String diagnostics = "executor " + executor.executorId + " in container "
            + executor.container.getId() + " on " + nodeName(executor.container.getNodeId())
            + " did not register with the driver within tide.executor.registrationTimeout = "
            + settings.registrationTimeout().toSeconds() + " s";
        LOG.warn("{}; releasing it and asking for a replacement", diagnostics);
        release(executor.container, "not registered in time");
        executor.state = State.RELEASING;
        wakeRequested = true;
        countFailure(executor, diagnostics);
      }
    }
  }

  /** Our starting and running containers per node, under both node name and host. */
  private Map<String, Integer> containersPerNode() {
    Map<String, Integer> perNode = new HashMap<>();
    for (ExecutorContainer executor : byContainer.values()) {
      if (executor.state == State.RELEASING) {
        continue;
      }
      NodeId node = executor.container.getNodeId();
      perNode.merge(node.getHost(), 1, Integer::sum);
      String name = node.toString();
      if (!name.equals(node.getHost())) {
        perNode.merge(name, 1, Integer::sum);
      }
    }
    return perNode;
  }

  /** The RM's name of a node: see {@link Settings#nodeNamesIncludePort()}. */
  private String nodeName(NodeId node) {
    return settings.nodeNamesIncludePort() ? node.toString() : node.getHost();
  }

  private void abortOnce(String diagnostics) {
    if (!aborted) {
      aborted = true;
      LOG.error("Aborting the application: {}", diagnostics);
      driver.abort(diagnostics);
    }
  }

  private void release(Container container, String reason) {
    amrmClient.releaseAssignedContainer(container.getId());
    releasedContainers.add(container.getId());
    releasedThisRound++;
    LOG.debug("Releasing container {} on {}: {}", container.getId(), container.getNodeId(),
        reason);
    driver.logEvent("containerReleased", "container", container.getId().toString(), "host",
        container.getNodeId().getHost(), "reason", reason);
  }

  private void releaseAll() {
    List<ExecutorContainer> held = new ArrayList<>();
    for (ExecutorContainer executor : byContainer.values()) {
      if (executor.state != State.RELEASING) {
        held.add(executor);
      }
    }
    if (held.isEmpty()) {
      return;
    }
    LOG.info("Stopping: releasing {} executor containers", held.size());
    for (ExecutorContainer executor : held) {
      try {
        release(executor.container, "allocator stopping");
        executor.state = State.RELEASING;
      } catch (RuntimeException e) {
        LOG.warn("Cannot release container {}", executor.container.getId(), e);
      }
    }
    try {
      amrmClient.allocate(currentProgress());
    } catch (Exception e) {
      LOG.warn("Final heartbeat (releasing containers) failed", e);
    }
  }

  private float currentProgress() {
    try {
      Float value = progress.get();
      return value == null ? 0f : Math.max(0f, Math.min(1f, value));
    } catch (RuntimeException e) {
      LOG.debug("Progress unavailable", e);
      return 0f;
    }
  }

  private int count(State state) {
    int n = 0;
    for (ExecutorContainer executor : byContainer.values()) {
      if (executor.state == state) {
        n++;
      }
    }
    return n;
  }
}
