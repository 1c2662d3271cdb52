package dev.tide.am;

import dev.tide.am.ContainerRequestReconciler.Assignment;
import dev.tide.am.ContainerRequestReconciler.RequestDelta;
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
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
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
 * heartbeats to the RM every 200 ms while requests are pending, backing off to 3 s when nothing
 * is pending. {@link #requestTotalExecutors} and {@link #killExecutors} (any thread) and launch
 * results (launcher threads) only post a task to that thread and wake it; they return at once.
 *
 * <p>Each round: reconcile (add or cancel requests so that pending + running + starting =
 * target), heartbeat, then handle allocated containers (launch what is still wanted, release the
 * surplus) and completed containers (classify, tell the driver, count failures; past
 * {@code tide.executor.maxFailures} failures the driver is aborted).
 */
public final class YarnAllocator implements ExecutorAllocationClient {
  private static final Logger LOG = LoggerFactory.getLogger(YarnAllocator.class);
  /** Consecutive failed heartbeats before the application is aborted. */
  private static final int MAX_HEARTBEAT_FAILURES = 5;

  private enum State { STARTING, RUNNING, RELEASING }

  /** An executor's container, from assignment to completion. Allocator thread only. */
  private static final class ExecutorContainer {
    final String executorId;
    final Container container;
    State state = State.STARTING;
    boolean reportedToDriver;

    ExecutorContainer(String executorId, Container container) {
      this.executorId = executorId;
      this.container = container;
    }

    String host() {
      return container.getNodeId().getHost();
    }
  }

  private final AMRMClient<ContainerRequest> amrmClient;
  private final ContainerRequestReconciler reconciler;
  private final ContainerOutcomeClassifier classifier;
  private final int maxFailures;
  private final long fastIntervalMs;
  private final long slowIntervalMs;
  private final BlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();
  private final Thread thread;

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
  private final Map<String, Integer> failuresPerHost = new TreeMap<>();
  private int failures;
  private boolean aborted;
  private int nextExecutorId = 1;
  private int heartbeatFailures;
  private long currentIntervalMs;
  private boolean wakeRequested = true;
  private volatile boolean stopping;
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
    this.amrmClient = amrmClient;
    this.reconciler = reconciler;
    this.classifier = classifier;
    this.maxFailures = maxFailures;
    this.fastIntervalMs = fastInterval.toMillis();
    this.slowIntervalMs = Math.max(fastIntervalMs, slowInterval.toMillis());
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
    this.driver = driver;
    this.launcher = launcher;
    this.progress = progress;
    thread.start();
  }

  @Override
  public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount) {
    Map<String, Integer> hints = Map.copyOf(hostToLocalTaskCount);
    mailbox.add(() -> {
      if (targetExecutors != this.targetExecutors) {
        wakeRequested = true;
      }
      this.targetExecutors = Math.max(0, targetExecutors);
      this.localityAwareTasks = localityAwareTasks;
      this.hostToLocalTaskCount = hints;
    });
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
    long nextHeartbeat = System.nanoTime();
    try {
      while (!stopping) {
        Runnable task;
        while ((task = mailbox.poll()) != null) {
          runTask(task);
        }
        long now = System.nanoTime();
        if (wakeRequested || now - nextHeartbeat >= 0) {
          wakeRequested = false;
          round();
          nextHeartbeat = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(nextInterval());
          continue;
        }
        task = mailbox.poll(nextHeartbeat - now, TimeUnit.NANOSECONDS);
        if (task != null) {
          runTask(task);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      releaseAll();
    }
  }

  private void runTask(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("Allocator task failed", e);
    }
  }

  /** 200 ms while anything is pending or starting, else doubling up to the slow interval. */
  private long nextInterval() {
    if (reconciler.pendingRequests() > 0 || count(State.STARTING) > 0) {
      currentIntervalMs = fastIntervalMs;
    } else {
      currentIntervalMs = Math.min(slowIntervalMs, currentIntervalMs * 2);
    }
    return currentIntervalMs;
  }

  private void round() {
    releasedThisRound = 0;
    int running = count(State.RUNNING);
    int starting = count(State.STARTING);
    RequestDelta delta =
        reconciler.reconcile(targetExecutors, running, starting, hostToLocalTaskCount);
    if (delta.changed()) {
      currentIntervalMs = fastIntervalMs;
    }
    AllocateResponse response;
    try {
      response = amrmClient.allocate(currentProgress());
      heartbeatFailures = 0;
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
      LOG.info("target {} -> {}: requested {}, cancelled {}, released {}, launching {}"
          + " (pending {}, starting {}, running {})", loggedTarget, targetExecutors,
          delta.requested(), delta.cancelled(), releasedThisRound, launched,
          reconciler.pendingRequests(), count(State.STARTING), count(State.RUNNING));
      loggedTarget = targetExecutors;
    }
  }

  private int handleAllocated(List<Container> allocated) {
    if (allocated.isEmpty()) {
      return 0;
    }
    for (Container container : allocated) {
      driver.logEvent("containerAllocated", "container", container.getId().toString(),
          "host", container.getNodeId().getHost());
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
      driver.logEvent("executorLaunched", "executor", executor.executorId, "container",
          executor.container.getId().toString(), "host", executor.host(), "shufflePort",
          Integer.toString(launched.shufflePort()));
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
          "exitStatus", Integer.toString(status.getExitStatus()), "released",
          Boolean.toString(released), "failure", Boolean.toString(outcome.failure()),
          "diagnostics", outcome.diagnostics());
      if (executor == null) {
        LOG.debug("Container {} (no executor) completed: {}", id, outcome.diagnostics());
        continue;
      }
      byExecutor.remove(executorId);
      if (outcome.failure() || outcome.kind() == ContainerOutcome.Kind.MEMORY_EXCEEDED) {
        LOG.warn("Executor {} in container {} on {} ended: {}", executorId, id, executor.host(),
            outcome.diagnostics());
      } else {
        LOG.debug("Executor {} in container {} ended: {}", executorId, id, outcome.diagnostics());
      }
      if (executor.reportedToDriver) {
        driver.executorExited(executorId, outcome.failure(), outcome.diagnostics());
      }
      if (outcome.failure()) {
        countFailure(executor, outcome.diagnostics());
      }
    }
  }

  private void countFailure(ExecutorContainer executor, String diagnostics) {
    failures++;
    failuresPerHost.merge(executor.host(), 1, Integer::sum);
    if (failures > maxFailures) {
      abortOnce(failures + " executor failures (more than tide.executor.maxFailures = "
          + maxFailures + "; per host " + failuresPerHost + "); last: executor "
          + executor.executorId + " on " + executor.host() + ": " + diagnostics);
    }
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
