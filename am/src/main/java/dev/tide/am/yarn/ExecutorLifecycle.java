package dev.tide.am.yarn;

import dev.tide.am.allocation.ContainerOutcome;
import dev.tide.am.allocation.ContainerOutcomeClassifier;
import dev.tide.am.allocation.ExecutorFailures;
import dev.tide.am.allocation.MaxExecutorFailures;
import dev.tide.am.yarn.ExecutorContainers.Executor;
import dev.tide.am.yarn.ExecutorContainers.State;
import dev.tide.am.yarn.ExecutorLauncher.LaunchFailed;
import dev.tide.am.yarn.ExecutorLauncher.LaunchResult;
import dev.tide.am.yarn.ExecutorLauncher.Launched;
import dev.tide.am.yarn.ExecutorRequests.Assignment;
import dev.tide.driver.events.EventName;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to each container the RM hands over: launched while executors are still wanted
 * (its request removed) or released at once as surplus; on the launch's result, running or
 * released and counted as a failure; released and counted when it does not register with the
 * driver in time (the launch watchdog); on completion classified (DESIGN.md "Container
 * outcome"), counted when it is a failure and reported to the driver; when the allocator stops,
 * released, after a short wait for the exits of executors the driver has already seen go.
 *
 * <p>Failures count towards {@code tide.executor.maxFailures} (past it the application is
 * aborted with the last failure's diagnostics) and, unless the container exceeded its memory,
 * against their node ({@link NodeExclusions}).
 *
 * <p>Not thread-safe: the allocator thread only. Launch results arrive on launcher threads and
 * are posted to the allocator's mailbox.
 */
final class ExecutorLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorLifecycle.class);
  /**
   * How long stopping waits, at most, for the completions of containers whose executors the
   * driver has seen go: a NodeManager reports an exit to the RM on its next heartbeat and the
   * RM to the AM on the AM's next, so an executor that died just before the application ended
   * would otherwise be released without its exit status (out of heap, killed for memory) ever
   * being logged.
   */
  static final Duration GONE_EXECUTORS_WAIT = Duration.ofSeconds(3);

  /**
   * What the executor lifecycle needs of the allocator's settings.
   *
   * @param registrationTimeout how long a launched executor may take to register with the
   *     driver; zero turns the watchdog off
   * @param stopHeartbeatInterval the interval of the heartbeats that collect exit statuses when
   *     the allocator stops (its fast interval)
   * @param failuresValidity how long an executor failure counts (named in the abort message)
   * @param maxFailures how many executor failures the application tolerates
   * @param nodeName the RM's name of a node (host, or host:port)
   * @param clockMillis wall-clock time for the watchdog
   */
  record Settings(Duration registrationTimeout, Duration stopHeartbeatInterval,
      Duration failuresValidity, MaxExecutorFailures maxFailures,
      Function<NodeId, String> nodeName, LongSupplier clockMillis) {}

  private final Settings settings;
  private final ExecutorRequests requests;
  private final ContainerOutcomeClassifier classifier;
  private final ExecutorContainers containers;
  private final NodeExclusions exclusions;
  private final DriverCallbacks driver;
  private final ExecutorLauncher launcher;
  /** Runs a task on the allocator thread (its mailbox). */
  private final Consumer<Runnable> post;
  /** Asks for the next round at once. */
  private final Runnable wake;
  /** Aborts the application (once) with these diagnostics. */
  private final Consumer<String> abort;
  /** Nodes that leave (decommissioning or gone): a container granted there is released. */
  private final Predicate<NodeId> nodeLeaving;

  ExecutorLifecycle(Settings settings, ExecutorRequests requests,
      ContainerOutcomeClassifier classifier, ExecutorContainers containers,
      NodeExclusions exclusions, DriverCallbacks driver, ExecutorLauncher launcher,
      Consumer<Runnable> post, Runnable wake, Consumer<String> abort,
      Predicate<NodeId> nodeLeaving) {
    this.nodeLeaving = nodeLeaving;
    this.settings = settings;
    this.requests = requests;
    this.classifier = classifier;
    this.containers = containers;
    this.exclusions = exclusions;
    this.driver = driver;
    this.launcher = launcher;
    this.post = post;
    this.wake = wake;
    this.abort = abort;
  }

  /** Launches what is still wanted of the allocated containers, releases the rest. */
  int allocated(List<Container> allocated, int targetExecutors) {
    if (allocated.isEmpty()) {
      return 0;
    }
    for (Container container : allocated) {
      driver.logEvent(EventName.CONTAINER_ALLOCATED, "container", container.getId().toString(),
          "host", container.getNodeId().getHost(), "node",
          nodeName(container));
    }
    long allocatedAt = settings.clockMillis().getAsLong();
    Assignment assignment = requests.assign(allocated, targetExecutors, containers.live());
    for (Container surplus : assignment.surplus()) {
      containers.release(surplus, "surplus: target " + targetExecutors + " already met");
    }
    int launched = 0;
    for (Container container : assignment.toLaunch()) {
      if (nodeLeaving.test(container.getNodeId())) {
        // Its request was removed with the assignment: the next round asks again, elsewhere.
        LOG.info("Releasing container {} granted on node {}, which is leaving the cluster",
            container.getId(), nodeName(container));
        containers.release(container, "node " + nodeName(container) + " is leaving");
        wake.run();
        continue;
      }
      launched++;
      Executor executor = containers.add(container);
      executor.allocatedAtMillis = allocatedAt;
      LOG.debug("Launching executor {} in container {} on {}", executor.id, container.getId(),
          container.getNodeId());
      launcher.launch(executor.id, container, result -> post.accept(() -> launchDone(result)));
    }
    return launched;
  }

  private void launchDone(LaunchResult result) {
    Executor executor = containers.inContainer(result.container().getId());
    if (executor == null || executor.state != State.STARTING) {
      LOG.debug("Launch result for executor {} ignored: container {} already gone",
          result.executorId(), result.container().getId());
      return;
    }
    if (result instanceof Launched launched) {
      executor.state = State.RUNNING;
      executor.reportedToDriver = true;
      executor.launchedAtMillis = settings.clockMillis().getAsLong();
      driver.logEvent(EventName.EXECUTOR_LAUNCHED, "executor", executor.id, "container",
          executor.container.getId().toString(), "host", executor.host(), "shufflePort",
          launched.shufflePort(), "node", nodeName(executor.container),
          "nodeHttp", executor.container.getNodeHttpAddress());
      driver.executorNode(executor.id, nodeName(executor.container));
      driver.executorLaunched(executor.id, executor.host(), launched.shufflePort(),
          executor.launchedAtMillis - executor.allocatedAtMillis);
    } else if (result instanceof LaunchFailed failed) {
      containers.release(executor, "launch failed");
      countFailure(executor, failed.diagnostics(), true);
      wake.run();
    }
  }

  /** The launch watchdog: see {@link DriverCallbacks#isExecutorRegistered}. */
  void releaseUnregistered() {
    long timeout = settings.registrationTimeout().toMillis();
    if (timeout <= 0) {
      return;
    }
    long now = settings.clockMillis().getAsLong();
    for (Executor executor : containers.runningUnregistered()) {
      if (driver.isExecutorRegistered(executor.id)) {
        executor.registered = true;
      } else if (now - executor.launchedAtMillis >= timeout) {
        String diagnostics = "executor " + executor.id + " in container "
            + executor.container.getId() + " on " + nodeName(executor.container)
            + " did not register with the driver within tide.executor.registrationTimeout = "
            + settings.registrationTimeout().toSeconds() + " s";
        LOG.warn("{}; releasing it and asking for a replacement", diagnostics);
        containers.release(executor, "not registered in time");
        wake.run();
        countFailure(executor, diagnostics, true);
      }
    }
  }

  /**
   * The driver declared {@code executor} lost (no heartbeat within its timeout): its container
   * is released and the loss counted as a failure against its node, as Spark counts an executor
   * it kills for a missed heartbeat. A JVM that stops answering (frozen, swapping, cut off) is
   * a broken executor like one that exits with an error; uncounted, a node or a job that hangs
   * every executor would be given new ones for ever, since a lost executor's tasks are rerun
   * without counting against their attempts.
   */
  void releaseLost(Executor executor, String diagnostics) {
    LOG.warn("{}; releasing container {} and asking for a replacement", diagnostics,
        executor.container.getId());
    containers.release(executor, "lost: no heartbeat");
    countFailure(executor, diagnostics, true);
  }

  /**
   * Classifies completed containers, counts the failures, tells the driver.
   *
   * @return executors that ended without the AM releasing them (to be replaced)
   */
  int completed(List<ContainerStatus> statuses) {
    int lost = 0;
    for (ContainerStatus status : statuses) {
      ContainerId id = status.getContainerId();
      ExecutorContainers.Completion completion = containers.complete(id);
      Executor executor = completion.executor();
      ContainerOutcome outcome = classifier.classify(status.getExitStatus(),
          status.getDiagnostics(), completion.released());
      String executorId = executor == null ? "" : executor.id;
      driver.logEvent(EventName.CONTAINER_COMPLETED, "container", id.toString(), "executor", executorId,
          "exitStatus", status.getExitStatus(), "released", completion.released(), "failure",
          outcome.failure(), "diagnostics", outcome.diagnostics());
      if (executor == null) {
        LOG.debug("Container {} (no executor) completed: {}", id, outcome.diagnostics());
        continue;
      }
      if (!completion.released()) {
        lost++;
        if (status.getExitStatus() == ContainerExitStatus.PREEMPTED) {
          LOG.info("Executor {} in container {} on {} was preempted by YARN; not a failure, its"
              + " tasks run again elsewhere", executorId, id, executor.host());
          driver.logEvent(EventName.EXECUTOR_PREEMPTED, "executor", executorId, "container",
              id.toString(), "host", executor.host(), "how", "stopped by YARN", "reason",
              outcome.diagnostics());
        }
      }
      if (outcome.failure()) {
        LOG.warn("Executor {} in container {} on {} ended: {}", executorId, id, executor.host(),
            outcome.diagnostics());
        // Counted before the driver hears of it: whoever learns of the exit from the driver
        // (a test's clock, a later decision) sees the failure already stamped.
        countFailure(executor, outcome.diagnostics(), outcome.againstNode());
      } else {
        LOG.debug("Executor {} in container {} ended: {}", executorId, id, outcome.diagnostics());
      }
      if (executor.reportedToDriver) {
        driver.executorExited(executorId, outcome.failure(), outcome.diagnostics());
      }
    }
    return lost;
  }

  /**
   * When the allocator stops: while a held container's executor is one the driver has seen go,
   * heartbeats at the fast interval for {@link #GONE_EXECUTORS_WAIT} at most, so its completion
   * is classified and logged as in a round (containers granted meanwhile are released as
   * surplus); then releases every container still held, with a last heartbeat.
   *
   * @param wait false when the allocator failed: no more than the releases
   */
  void stop(ResourceManagerHeartbeat heartbeat, Supplier<Float> progress, boolean wait) {
    long interval = Math.max(1, settings.stopHeartbeatInterval().toMillis());
    long heartbeats = wait ? Math.max(1, GONE_EXECUTORS_WAIT.toMillis() / interval) : 0;
    if (heartbeats > 0 && holdsGoneExecutor()) {
      LOG.info("Stopping: waiting up to {} ms for the exit statuses of executors gone from the"
          + " driver", GONE_EXECUTORS_WAIT.toMillis());
    }
    try {
      for (long n = 0; n < heartbeats && holdsGoneExecutor(); n++) {
        if (n > 0) {
          Thread.sleep(interval);
        }
        AllocateResponse response = heartbeat.allocate(progress);
        if (response != null) {
          allocated(response.getAllocatedContainers(), 0);
          completed(response.getCompletedContainersStatuses());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Executor> held = containers.held();
    if (!held.isEmpty()) {
      LOG.info("Stopping: releasing {} executor containers", held.size());
      for (Executor executor : held) {
        try {
          containers.release(executor, "allocator stopping");
        } catch (RuntimeException e) {
          LOG.warn("Cannot release container {}", executor.container.getId(), e);
        }
      }
      heartbeat.last(progress);
    }
  }

  private boolean holdsGoneExecutor() {
    for (Executor executor : containers.held()) {
      if (driver.isExecutorGone(executor.id)) {
        return true;
      }
    }
    return false;
  }

  private void countFailure(Executor executor, String diagnostics, boolean againstNode) {
    String node = nodeName(executor.container);
    ExecutorFailures.Verdict verdict = exclusions.failure(node, againstNode,
        driver.tasksSucceeded());
    if (verdict.tooMany()) {
      int againstNodes = 0;
      for (int n : verdict.perNode().values()) {
        againstNodes += n;
      }
      int notAgainstNodes = verdict.recentFailures() - againstNodes;
      abort.accept(verdict.recentFailures() + " executor failures in a row (no task succeeded"
          + " between them) within " + settings.failuresValidity().toSeconds() + " s (more than "
          + settings.maxFailures().describe(containers.peakLive())
          + "; per node " + verdict.perNode()
          + (notAgainstNodes > 0 ? ", " + notAgainstNodes + " not against a node (memory"
              + " exceeded or user code exited)" : "")
          + "); last: executor " + executor.id + " on " + node + ": " + diagnostics);
    }
  }

  /** The RM's name of the node of {@code container}. */
  private String nodeName(Container container) {
    return settings.nodeName().apply(container.getNodeId());
  }
}
