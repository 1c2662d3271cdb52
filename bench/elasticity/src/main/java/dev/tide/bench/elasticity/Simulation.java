package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.ClusterHeadroom;
import dev.tide.driver.scheduler.JobScheduler.IdleExecutor;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * One run of a trace under one policy: a discrete-event loop over simulated milliseconds with
 * the driver's 100 ms policy tick, the allocator's heartbeat, container starts, task ends and
 * stage releases. The policy is Tide's real {@link BatchAllocationPolicy}, fed the simulated
 * scheduler's counts and the simulated cluster's headroom exactly as the driver feeds it.
 *
 * <p>Single-threaded and deterministic: the same trace, settings and seed give the same result.
 */
final class Simulation {
  static final long TICK_MILLIS = 100;
  /** A run that has not finished by then is cut off (reported as such). */
  private static final long LIMIT_MILLIS = 3_600_000;

  /** The simulated cluster: queue capacity, allocator heartbeat, container start latency. */
  record ClusterModel(int capacity, long heartbeatMillis, long startLatencyMillis,
      long startJitterMillis, int slotsPerExecutor, long seed) {}

  /**
   * What a run measured.
   *
   * @param rampMillis time from the trace's stopwatch start to {@code rampTo} registered
   *     executors, or -1 if never reached or not measured
   */
  record Result(String strategy, long makespanMillis, long executorMillis, long oracleMillis,
      int targetChanges, int kills, int containers, int peakExecutors, long rampMillis,
      boolean finished) {
    double executorSeconds() {
      return executorMillis / 1000.0;
    }
  }

  private record Event(long atMillis, long seq, Runnable action) {}

  private final Trace trace;
  private final ClusterModel model;
  private final SimulatedCluster cluster;
  private final SimulatedScheduler scheduler;
  private final BatchAllocationPolicy policy;
  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) ->
      a.atMillis != b.atMillis ? Long.compare(a.atMillis, b.atMillis) : Long.compare(a.seq, b.seq));
  private final int[] remainingPerStage;
  private long seq;
  private long now;
  private int stagesLeft;
  private int lastTarget = -1;
  private int peak;
  private long rampMillis = -1;
  private long makespan = -1;

  private Simulation(Trace trace, ClusterModel model,
      Function<ClusterHeadroom, BatchAllocationPolicy> policyFactory) {
    this.trace = trace;
    this.model = model;
    this.cluster = new SimulatedCluster(model.capacity(), model.startLatencyMillis(),
        model.startJitterMillis(), model.seed());
    this.scheduler = new SimulatedScheduler(model.slotsPerExecutor());
    this.policy = policyFactory.apply(cluster);
    this.remainingPerStage = new int[trace.stages().size()];
    for (int i = 0; i < remainingPerStage.length; i++) {
      remainingPerStage[i] = trace.stages().get(i).taskMillis().length;
    }
    this.stagesLeft = remainingPerStage.length;
  }

  static Result run(Trace trace, ClusterModel model, String strategy,
      Function<ClusterHeadroom, BatchAllocationPolicy> policyFactory) {
    return new Simulation(trace, model, policyFactory).run(strategy);
  }

  private Result run(String strategy) {
    List<Trace.Stage> stages = trace.stages();
    for (int i = 0; i < stages.size(); i++) {
      if (i == 0 || !stages.get(i).afterPrevious()) {
        int stage = i;
        at(stages.get(i).releaseAtMillis(), () -> release(stage));
      }
    }
    at(0, this::policyTick);
    at(model.heartbeatMillis() / 2, this::heartbeat);
    while (makespan < 0 && !events.isEmpty() && now <= LIMIT_MILLIS) {
      Event e = events.poll();
      now = e.atMillis();
      cluster.setNow(now);
      e.action().run();
    }
    boolean finished = makespan >= 0;
    long end = finished ? makespan : now;
    return new Result(strategy, end, cluster.executorMillis(end),
        trace.workMillis() / model.slotsPerExecutor(), cluster.targetChanges(), cluster.killed(),
        cluster.containersGranted(), peak, rampMillis, finished);
  }

  private void at(long atMillis, Runnable action) {
    events.add(new Event(atMillis, seq++, action));
  }

  /** The driver's tick: evaluate, declare the target when it changed, kill what the policy chose. */
  private void policyTick() {
    List<IdleExecutor> idle = scheduler.idleExecutors();
    BatchAllocationPolicy.Decision d = policy.evaluate(now, scheduler.pendingTasks(),
        scheduler.runningTasks(), scheduler.activeExecutors(), idle);
    if (d.targetExecutors() != lastTarget) {
      lastTarget = d.targetExecutors();
      cluster.requestTotalExecutors(lastTarget, 0, Map.of());
    }
    if (!d.executorsToRemove().isEmpty()) {
      scheduler.markPendingRemoval(d.executorsToRemove());
      cluster.killExecutors(d.executorsToRemove());
      for (String id : d.executorsToRemove()) {
        scheduler.executorRemoved(id);
      }
    }
    at(now + TICK_MILLIS, this::policyTick);
  }

  private void heartbeat() {
    cluster.heartbeat((id, readyAt) -> at(readyAt, () -> executorReady(id)));
    at(now + model.heartbeatMillis(), this::heartbeat);
  }

  private void executorReady(String id) {
    scheduler.executorAdded(id, now);
    int active = scheduler.activeExecutors();
    peak = Math.max(peak, active);
    if (trace.rampTo() > 0 && rampMillis < 0 && now >= trace.rampFromMillis()
        && active >= trace.rampTo()) {
      rampMillis = now - trace.rampFromMillis();
    }
    startTasks();
  }

  private void release(int stage) {
    scheduler.submit(stage, trace.stages().get(stage).taskMillis());
    if (remainingPerStage[stage] == 0) {
      stageDone(stage);
    }
    startTasks();
  }

  private void startTasks() {
    for (SimulatedScheduler.Start s : scheduler.assign()) {
      at(now + s.durationMillis(), () -> taskFinished(s));
    }
  }

  private void taskFinished(SimulatedScheduler.Start s) {
    scheduler.taskFinished(s.executorId(), now);
    if (--remainingPerStage[s.stage()] == 0) {
      stageDone(s.stage());
    }
    startTasks();
  }

  private void stageDone(int stage) {
    if (--stagesLeft == 0) {
      makespan = now;
      return;
    }
    int next = stage + 1;
    if (next < remainingPerStage.length && trace.stages().get(next).afterPrevious()) {
      at(Math.max(now, trace.stages().get(next).releaseAtMillis()), () -> release(next));
    }
  }
}
