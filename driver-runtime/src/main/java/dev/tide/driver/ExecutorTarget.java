package dev.tide.driver;

import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.DemandForecast;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.alloc.ExpectedWork;
import dev.tide.driver.alloc.SchedulerView;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import java.util.List;
import java.util.Map;

/**
 * The executor target the driver asks of the cluster: the batch allocation policy's, evaluated on
 * the scheduler's load (read through {@link SchedulerView}) at every tick and when a stage is
 * submitted, or, for a streaming job with its own policy, that policy's. A request goes out only
 * when the target or the locality hints changed; each change of the batch policy's target is
 * recorded ({@code targetChanged}).
 *
 * <p>Threading: owned by the driver's event loop.
 */
final class ExecutorTarget {
  private final BatchAllocationPolicy policy;
  private final ExecutorAllocationClient allocationClient;
  private final ExpectedWork expected = new ExpectedWork();
  /** Tasks submitted as of the batch policy's last evaluation. */
  private long submittedAtEvaluation = -1;
  private int lastTarget = -1;
  private Map<String, Integer> lastHints = Map.of();

  ExecutorTarget(BatchAllocationPolicy policy, ExecutorAllocationClient allocationClient) {
    this.policy = policy;
    this.allocationClient = allocationClient;
  }

  BatchAllocationPolicy policy() {
    return policy;
  }

  /** The target last asked for; -1 before the first request. */
  int last() {
    return lastTarget;
  }

  /** Asks for {@code target} executors in all, without locality (a streaming policy's). */
  void request(int target) {
    lastTarget = target;
    allocationClient.requestTotalExecutors(target, 0, Map.of());
  }

  /**
   * Work the job announced at {@code now} ({@code JobSession.expect}): the batch policy's
   * lookahead sees it as a stage runnable in {@code withinMillis}.
   */
  void expect(int executors, long withinMillis, long now, SchedulerView scheduler) {
    expected.announce(executors, withinMillis, now, scheduler.tasksSubmitted());
  }

  /** Whether announced work is still awaited. */
  boolean expecting() {
    return expected.pending() > 0;
  }

  /** Whether stages were submitted since the batch policy's last evaluation. */
  boolean newSubmissions(SchedulerView scheduler) {
    return scheduler.tasksSubmitted() != submittedAtEvaluation;
  }

  /**
   * Evaluates the batch policy at {@code now} on the scheduler's load, {@code starting}
   * executors launched and not yet added, and asks for its target when it (or the locality
   * hints) changed; returns the idle executors the policy removes.
   */
  List<String> evaluate(long now, SchedulerView scheduler, int starting, EventLog events) {
    submittedAtEvaluation = scheduler.tasksSubmitted();
    int active = scheduler.activeExecutors();
    DemandForecast.Forecast forecast = expected.addTo(DemandForecast.of(
        scheduler.stageOutlook(), policy.settings().tasksPerExecutor(),
        DemandForecast.executorsExpected(active, starting, policy.targetExecutors(),
            allocationClient.grantableExecutors())),
        now, scheduler.tasksSubmitted(), policy.settings().tasksPerExecutor());
    BatchAllocationPolicy.Decision decision = policy.evaluate(now,
        BatchAllocationPolicy.Load.of(scheduler, forecast));
    Map<String, Integer> hints = scheduler.hostToLocalTaskCount();
    // The policy logs each change of its target; the first request sends the initial target.
    if (decision.targetExecutors() != lastTarget || !hints.equals(lastHints)) {
      if (decision.targetExecutors() != Math.max(lastTarget, 0)) {
        events.record(EventName.TARGET_CHANGED, "from", Math.max(lastTarget, 0), "target",
            decision.targetExecutors(), "reason", policy.reason());
      }
      lastTarget = decision.targetExecutors();
      lastHints = hints;
      allocationClient.requestTotalExecutors(lastTarget, scheduler.localityAwareTasks(), hints);
    }
    return decision.executorsToRemove();
  }
}
