package dev.tide.am.yarn;

import dev.tide.am.allocation.ContainerOutcomeClassifier;
import dev.tide.am.allocation.HeartbeatCadence;
import dev.tide.am.allocation.MaxExecutorFailures;
import dev.tide.am.yarn.ExecutorContainers.Executor;
import dev.tide.am.yarn.ExecutorContainers.State;
import dev.tide.am.yarn.ExecutorRequests.Demand;
import dev.tide.am.yarn.ExecutorRequests.RequestDelta;
import dev.tide.driver.ThrowableSummary;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The YARN side of executor allocation: turns the driver's declared target into container
 * requests, heartbeats to the RM, and hands what the RM returns to {@link ExecutorLifecycle}
 * (launch, release, classify, count failures) over the state of {@link ExecutorContainers}.
 *
 * <p>Threading: one thread ({@code tide-allocator}) owns all state and the AMRM client, with the
 * cadence of {@link HeartbeatCadence}. {@link #requestTotalExecutors} and {@link #killExecutors}
 * (any thread) and launch results (launcher threads) only post a task to its mailbox, which
 * wakes it; they return at once.
 *
 * <p>Each round: end node exclusions that have expired, release executors that did not
 * register in time, lift the oldest exclusion if every node is excluded while executors are
 * wanted, reconcile (pending + running + starting = target), heartbeat, then handle allocated
 * and completed containers; executors lost with the target unmet wake the next round at once.
 *
 * <p>Failure: any {@link Throwable} thrown by a round or a mailbox task aborts the application
 * at once with that cause (DESIGN.md "Container outcome"); the thread then releases every
 * container and ends. Failed heartbeats in a row and an RM that no longer knows the attempt
 * abort it as well ({@link ResourceManagerHeartbeat}), as do too many executor failures
 * ({@link ExecutorLifecycle}). Nodes are named as the RM names them: host, or host:port with
 * {@code yarn.scheduler.include-port-in-node-name}.
 */
public final class YarnAllocator implements ExecutorAllocationClient {
  private static final Logger LOG = LoggerFactory.getLogger(YarnAllocator.class);
  /** What {@link #runDue()} returns once the allocator has failed: nothing is due any more. */
  static final long FAILED = -1;

  /**
   * The allocator's settings.
   *
   * @param maxFailures how many executor failures the application tolerates
   * @param registrationTimeout how long a launched executor may take to register with the
   *     driver before its container is released and replaced; zero turns the watchdog off
   * @param nodeNamesIncludePort whether the RM names nodes host:port
   *     ({@code yarn.scheduler.include-port-in-node-name}); node exclusion and failure counts
   *     use the RM's node names
   * @param clockMillis wall-clock time for failure windows, exclusions and the watchdog
   */
  public record Settings(Resource executorResource, MaxExecutorFailures maxFailures,
      Duration failuresValidity, int maxFailuresPerNode, Duration nodeExclusionTimeout,
      Duration registrationTimeout, Duration fastInterval, Duration slowInterval,
      boolean nodeNamesIncludePort, LongSupplier clockMillis) {
    /** The RM's name of a node: see {@link #nodeNamesIncludePort()}. */
    String nodeName(NodeId node) {
      return nodeNamesIncludePort ? node.toString() : node.getHost();
    }

    NodeExclusions.Settings exclusions() {
      return new NodeExclusions.Settings(failuresValidity, maxFailuresPerNode,
          nodeExclusionTimeout, this::nodeName, clockMillis);
    }

    ExecutorLifecycle.Settings lifecycle() {
      return new ExecutorLifecycle.Settings(registrationTimeout, fastInterval, failuresValidity,
          maxFailures, this::nodeName, clockMillis);
    }
  }

  private final ExecutorRequests requests;
  private final ContainerOutcomeClassifier classifier;
  private final Settings settings;
  private final ExecutorContainers containers;
  private final NodeExclusions exclusions;
  private final HeartbeatCadence cadence;
  private final ResourceManagerHeartbeat heartbeat;
  private final BlockingDeque<Runnable> mailbox = new LinkedBlockingDeque<>();
  private final Thread thread;

  // Everything below is owned by the allocator thread (or written before it starts).
  private DriverCallbacks driver;
  private ExecutorLifecycle lifecycle;
  private NodeUpdates nodeUpdates;
  private PreemptionResponder preemption;
  private Supplier<Float> progress;
  private int targetExecutors;
  private int loggedTarget;
  private int localityAwareTasks;
  private Map<String, Integer> hostToLocalTaskCount = Map.of();
  private boolean aborted;
  private boolean failed;
  /** Why wanted executors are missing, for the status; "" when none are or no reason is known. */
  private volatile String waitingReason = "";
  private volatile boolean stopping;

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
    this.requests = requests;
    this.classifier = classifier;
    this.settings = settings;
    NodeExclusions.EventSink events = (name, fields) -> driver.logEvent(name, fields);
    this.containers = new ExecutorContainers(amrmClient, events);
    this.exclusions = new NodeExclusions(amrmClient, settings.exclusions(),
        () -> settings.maxFailures().limit(containers.peakLive()), events);
    this.cadence = new HeartbeatCadence(settings.fastInterval(), settings.slowInterval(),
        nanoClock);
    this.heartbeat = new ResourceManagerHeartbeat(amrmClient, settings.executorResource(),
        exclusions, this::abortOnce, this::attemptGoneOnce);
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
    this.progress = progress;
    this.nodeUpdates = new NodeUpdates(settings::nodeName, settings.clockMillis(), driver);
    this.preemption = new PreemptionResponder(containers, driver);
    this.lifecycle = new ExecutorLifecycle(settings.lifecycle(), requests, classifier, containers,
        exclusions, driver, launcher, mailbox::add, cadence::wake, this::abortOnce,
        nodeUpdates::isLeaving);
  }

  @Override
  public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount) {
    Map<String, Integer> hints = Map.copyOf(hostToLocalTaskCount);
    mailbox.add(() -> {
      if (targetExecutors != this.targetExecutors || !hints.equals(this.hostToLocalTaskCount)) {
        cadence.wake();
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
    return heartbeat.grantableExecutors();
  }

  /**
   * Why executors the driver wants are not running, for the job status: the nodes excluded for
   * executor failures and an exclusion lifted because all were; empty when no executor is
   * missing or none of that applies. Any thread; never blocks (a volatile read).
   */
  public String waitingReason() {
    return waitingReason;
  }

  @Override
  public void killExecutors(Collection<String> executorIds) {
    List<String> ids = List.copyOf(executorIds);
    mailbox.add(() -> {
      for (String id : ids) {
        Executor executor = containers.byId(id);
        if (executor == null || executor.state == State.RELEASING) {
          LOG.debug("Kill of executor {} ignored: not running", id);
          continue;
        }
        containers.release(executor, "executor " + id + " killed by the driver");
      }
      cadence.wake();
    });
  }

  /**
   * Releases the lost executor's container and counts the loss as an executor failure against
   * its node (see {@link ExecutorLifecycle#releaseLost}); its completion is then not counted
   * again.
   */
  @Override
  public void killLostExecutor(String executorId, String reason) {
    mailbox.add(() -> {
      Executor executor = containers.byId(executorId);
      if (executor == null || executor.state == State.RELEASING) {
        LOG.debug("Kill of lost executor {} ignored: not running", executorId);
        return;
      }
      lifecycle.releaseLost(executor, reason);
      cadence.wake();
    });
  }

  /**
   * Stops the allocator thread and releases every container still held, with one last
   * heartbeat so the RM learns of it; containers whose executors the driver has seen go are
   * first given a few seconds to be reported complete ({@link ExecutorLifecycle#stop}). Waits
   * at most {@code timeout}. Safe to call twice.
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
        if (wait == FAILED) {
          return;
        }
        if (wait > 0) {
          // A posted task (a new target, a kill, a launch result) ends the wait early; it runs
          // in the next pass, with the others.
          Runnable task = mailbox.pollFirst(wait, TimeUnit.NANOSECONDS);
          if (task != null) {
            mailbox.addFirst(task);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        lifecycle.stop(heartbeat, progress, !failed && !Thread.currentThread().isInterrupted());
      } catch (RuntimeException e) {
        LOG.warn("Cannot release the containers", e);
      }
    }
  }

  /**
   * One pass of the allocator loop, on the allocator thread (or a test's, after {@link #bind}):
   * runs the posted tasks, then a round if one is due. Anything a task or the round throws
   * aborts the application with that cause, and the allocator stops.
   *
   * @return nanoseconds until the next round is due; 0 right after a round, so that what the
   *     round itself posted or woke is served before waiting; {@link #FAILED} once failed
   */
  long runDue() {
    if (failed) {
      return FAILED;
    }
    try {
      Runnable task;
      while ((task = mailbox.pollFirst()) != null) {
        task.run();
      }
      long wait = cadence.nanosUntilDue();
      if (wait > 0) {
        return wait;
      }
      cadence.roundStarted();
      round();
      waitingReason = exclusions.describeWaiting(targetExecutors > containers.live());
      boolean pending = requests.pendingRequests() > 0;
      cadence.roundDone(pending || containers.count(State.STARTING) > 0
          || containers.count(State.RELEASING) > 0, pending);
      return 0;
    } catch (Throwable t) {
      failed = true;
      LOG.error("The allocator failed; aborting the application", t);
      try {
        abortOnce("the YARN allocator failed: " + ThrowableSummary.of(t));
      } catch (RuntimeException e) {
        LOG.error("Cannot abort the application", e);
      }
      return FAILED;
    }
  }

  private void round() {
    exclusions.endExpired();
    lifecycle.releaseUnregistered();
    int live = containers.live();
    if (targetExecutors > live) {
      exclusions.liftIfNoNodeLeft(targetExecutors, live);
    }
    RequestDelta delta = requests.reconcile(new Demand(targetExecutors,
        containers.count(State.RUNNING), containers.count(State.STARTING), localityAwareTasks,
        hintsOffLeavingNodes(), containers.perNode()));
    if (delta.requested() > 0) {
      cadence.requestsAdded();
    } else if (delta.changed()) {
      cadence.requestsChanged();
    }
    AllocateResponse response = heartbeat.allocate(progress);
    int launched = 0;
    if (response != null) {
      nodeUpdates.apply(response.getUpdatedNodes());
      launched = lifecycle.allocated(response.getAllocatedContainers(), targetExecutors);
      int lost = lifecycle.completed(response.getCompletedContainersStatuses());
      preemption.respond(response.getPreemptionMessage());
      if (lost > 0 && containers.live() + requests.pendingRequests() < targetExecutors) {
        // Ask for their replacements now, not after an interval that may have backed off.
        cadence.wake();
      }
    }
    logRound(delta, launched);
  }

  /**
   * The driver's locality hints without the nodes that leave: no executor is asked for there,
   * and requests already made there no longer match the hints, so they are cancelled.
   */
  private Map<String, Integer> hintsOffLeavingNodes() {
    java.util.Set<String> leavingNodes = nodeUpdates.leavingNodes();
    if (leavingNodes.isEmpty()) {
      return hostToLocalTaskCount;
    }
    Map<String, Integer> hints = new java.util.HashMap<>(hostToLocalTaskCount);
    hints.keySet().removeAll(leavingNodes);
    return hints;
  }

  private void logRound(RequestDelta delta, int launched) {
    // Counted since the last line, so kills released between rounds are in it too.
    int released = containers.takeReleasedCount();
    if (delta.changed() || released > 0 || launched > 0 || loggedTarget != targetExecutors) {
      LOG.info("target {} -> {}: requested {} ({} local to {} hosts), cancelled {}, released {},"
          + " launching {} (pending {}, starting {}, running {})", loggedTarget, targetExecutors,
          delta.requested(), delta.localRequests(), delta.localHosts(), delta.cancelled(),
          released, launched, requests.pendingRequests(), containers.count(State.STARTING),
          containers.count(State.RUNNING));
      loggedTarget = targetExecutors;
    }
  }

  private void attemptGoneOnce(String diagnostics) {
    endOnce(diagnostics, driver::attemptGone);
  }

  private void abortOnce(String diagnostics) {
    endOnce(diagnostics, driver::abort);
  }

  /** Ends the application through {@code end}, once; stopping, it is ending anyway. */
  private void endOnce(String diagnostics, Consumer<String> end) {
    if (!aborted && !stopping) {
      aborted = true;
      LOG.error("Ending the application: {}", diagnostics);
      end.accept(diagnostics);
    }
  }
}
