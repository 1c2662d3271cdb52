package dev.tide.am;

import dev.tide.am.ExecutorContainers.Executor;
import dev.tide.am.ExecutorContainers.State;
import dev.tide.am.ExecutorLauncher.LaunchFailed;
import dev.tide.am.ExecutorLauncher.LaunchResult;
import dev.tide.am.ExecutorLauncher.Launched;
import dev.tide.am.ExecutorRequests.Assignment;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to each container the RM hands over: launched while executors are still wanted
 * (its request removed) or released at once as surplus; on the launch's result, running or
 * released and counted as a failure; released and counted when it does not register with the
 * driver in time (the launch watchdog); on completion classified (DESIGN.md "Container
 * outcome"), counted when it is a failure and reported to the driver.
 *
 * <p>Failures count towards {@code tide.executor.maxFailures} (past it the application is
 * aborted with the last failure's diagnostics) and, unless the container exceeded its memory,
 * against their node ({@link NodeExclusions}).
 *
 * <p>Not thread-safe: the allocator thread only. Launch results arrive on launcher threads and
 * are posted to the allocator's mailbox.
 */
final class ExecutorLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(YarnAllocator.class);

  private final YarnAllocator.Settings settings;
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

  ExecutorLifecycle(YarnAllocator.Settings settings, ExecutorRequests requests,
      ContainerOutcomeClassifier classifier, ExecutorContainers containers,
      NodeExclusions exclusions, DriverCallbacks driver, ExecutorLauncher launcher,
      Consumer<Runnable> post, Runnable wake, Consumer<String> abort) {
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
      driver.logEvent("containerAllocated", "container", container.getId().toString(),
          "host", container.getNodeId().getHost(), "node",
          settings.nodeName(container.getNodeId()));
    }
    long allocatedAt = settings.clockMillis().getAsLong();
    Assignment assignment = requests.assign(allocated, targetExecutors, containers.live());
    for (Container surplus : assignment.surplus()) {
      containers.release(surplus, "surplus: target " + targetExecutors + " already met");
    }
    for (Container container : assignment.toLaunch()) {
      Executor executor = containers.add(container);
      executor.allocatedAtMillis = allocatedAt;
      LOG.debug("Launching executor {} in container {} on {}", executor.id, container.getId(),
          container.getNodeId());
      launcher.launch(executor.id, container, result -> post.accept(() -> launchDone(result)));
    }
    return assignment.toLaunch().size();
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
      driver.logEvent("executorLaunched", "executor", executor.id, "container",
          executor.container.getId().toString(), "host", executor.host(), "shufflePort",
          launched.shufflePort(), "node", settings.nodeName(executor.container.getNodeId()),
          "nodeHttp", executor.container.getNodeHttpAddress());
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
            + executor.container.getId() + " on " + settings.nodeName(
                executor.container.getNodeId())
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
      driver.logEvent("containerCompleted", "container", id.toString(), "executor", executorId,
          "exitStatus", status.getExitStatus(), "released", completion.released(), "failure",
          outcome.failure(), "diagnostics", outcome.diagnostics());
      if (executor == null) {
        LOG.debug("Container {} (no executor) completed: {}", id, outcome.diagnostics());
        continue;
      }
      if (!completion.released()) {
        lost++;
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

  private void countFailure(Executor executor, String diagnostics, boolean againstNode) {
    String node = settings.nodeName(executor.container.getNodeId());
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
          + (notAgainstNodes > 0 ? ", " + notAgainstNodes + " exceeded their memory" : "")
          + "); last: executor " + executor.id + " on " + node + ": " + diagnostics);
    }
  }
}
