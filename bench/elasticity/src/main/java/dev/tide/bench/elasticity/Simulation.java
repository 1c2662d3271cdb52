package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.BatchAllocationPolicy.Decision;
import dev.tide.driver.alloc.ClusterHeadroom;
import dev.tide.driver.scheduler.JobScheduler.IdleExecutor;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
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
   * What decides the target and the removals on each 100 ms tick: Tide's
   * {@link BatchAllocationPolicy} ({@code policy::evaluate}) or the {@link OracleAllocation}.
   */
  interface Allocation {
    Decision evaluate(long nowMillis, int pendingTasks, int runningTasks, int activeExecutors,
        List<IdleExecutor> idle);
  }

  /** What a strategy may read from the run: the cluster's headroom and, for the oracle, the future. */
  interface Environment {
    ClusterHeadroom headroom();

    /** Executors the tasks will need at most between now and {@code now + horizonMillis}. */
    int executorsNeededWithin(long horizonMillis);

    /** Containers granted and not released (starting or running executors). */
    int containersHeld();
  }

  /**
   * What a run measured.
   *
   * @param rampMillis time from the trace's stopwatch start to {@code rampTo} registered
   *     executors, or -1 if never reached or not measured
   * @param stages per stage: submitted, full width reached, completed
   */
  record Result(String strategy, long makespanMillis, long executorMillis, long lowerBoundMillis,
      int targetChanges, int requests, int cancels, int kills, int containers, int peakExecutors,
      long rampMillis, boolean finished, List<StageTimes> stages) {
    double executorSeconds() {
      return executorMillis / 1000.0;
    }
  }

  /**
   * When one stage was submitted, first ran at full width (as many tasks running as it has, or
   * as {@code maxExecutors} slots allow; -1 if never) and completed, in simulated milliseconds.
   */
  record StageTimes(long submittedMillis, long fullWidthMillis, long completedMillis) {
    long durationMillis() {
      return completedMillis - submittedMillis;
    }

    long toFullWidthMillis() {
      return fullWidthMillis < 0 ? -1 : fullWidthMillis - submittedMillis;
    }
  }

  private record Event(long atMillis, long seq, Runnable action) {}

  private final Trace trace;
  private final ClusterModel model;
  private final int fullWidthTasks;
  private final SimulatedCluster cluster;
  private final SimulatedScheduler scheduler;
  private final Allocation policy;
  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) ->
      a.atMillis != b.atMillis ? Long.compare(a.atMillis, b.atMillis) : Long.compare(a.seq, b.seq));
  private final int[] remainingPerStage;
  /** Per stage: tasks submitted and not started, tasks running, latest end of a started task. */
  private final int[] pendingPerStage;
  private final int[] runningPerStage;
  private final long[] lastEndPerStage;
  private final boolean[] released;
  private final long[] submittedAt;
  private final long[] fullWidthAt;
  private final long[] completedAt;
  /** End times of the running tasks, with their counts. */
  private final TreeMap<Long, Integer> runningEnds = new TreeMap<>();
  private long seq;
  private long now;
  private int stagesLeft;
  private int lastTarget = -1;
  private int peak;
  private long rampMillis = -1;
  private long makespan = -1;

  private Simulation(Trace trace, ClusterModel model, int maxExecutors,
      Function<Environment, Allocation> allocationFactory) {
    this.trace = trace;
    this.model = model;
    this.fullWidthTasks = maxExecutors * model.slotsPerExecutor();
    this.cluster = new SimulatedCluster(model.capacity(), model.startLatencyMillis(),
        model.startJitterMillis(), model.seed());
    this.scheduler = new SimulatedScheduler(model.slotsPerExecutor());
    int stages = trace.stages().size();
    this.remainingPerStage = new int[stages];
    this.pendingPerStage = new int[stages];
    this.runningPerStage = new int[stages];
    this.lastEndPerStage = new long[stages];
    this.released = new boolean[stages];
    this.submittedAt = new long[stages];
    this.fullWidthAt = new long[stages];
    this.completedAt = new long[stages];
    Arrays.fill(submittedAt, -1);
    Arrays.fill(fullWidthAt, -1);
    Arrays.fill(completedAt, -1);
    for (int i = 0; i < stages; i++) {
      remainingPerStage[i] = trace.stages().get(i).taskMillis().length;
    }
    this.stagesLeft = stages;
    this.policy = allocationFactory.apply(new Environment() {
      @Override
      public ClusterHeadroom headroom() {
        return cluster;
      }

      @Override
      public int executorsNeededWithin(long horizonMillis) {
        return Simulation.this.executorsNeededWithin(horizonMillis);
      }

      @Override
      public int containersHeld() {
        return cluster.allocated();
      }
    });
  }

  /**
   * Runs {@code trace} to its end (or the time limit).
   *
   * @param maxExecutors the strategies' {@code maxExecutors}: a stage is at full width when
   *     {@code min(its tasks, maxExecutors x slots)} of its tasks run at once
   */
  static Result run(Trace trace, ClusterModel model, int maxExecutors, String strategy,
      Function<Environment, Allocation> allocationFactory) {
    return new Simulation(trace, model, maxExecutors, allocationFactory).run(strategy);
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
    List<StageTimes> stageTimes = new java.util.ArrayList<>();
    for (int i = 0; i < stages.size(); i++) {
      stageTimes.add(new StageTimes(submittedAt[i], fullWidthAt[i], completedAt[i]));
    }
    return new Result(strategy, end, cluster.executorMillis(end),
        trace.workMillis() / model.slotsPerExecutor(), cluster.targetChanges(),
        cluster.requested(), cluster.cancelled(), cluster.killed(), cluster.containersGranted(),
        peak, rampMillis, finished, List.copyOf(stageTimes));
  }

  /**
   * The most executors the tasks will occupy between now and {@code now + horizon}, known from
   * the trace and the durations of the running tasks: at each instant, the tasks pending now,
   * those still running then, and those of stages released by then. A timed stage is released
   * at its time; a stage behind a barrier when its predecessor's last task ends, known once that
   * stage has no pending task (a barrier stage further on is not foreseen).
   */
  private int executorsNeededWithin(long horizonMillis) {
    long until = now + horizonMillis;
    int pending = scheduler.pendingTasks();
    long most = pending + scheduler.runningTasks();
    List<Trace.Stage> stages = trace.stages();
    TreeMap<Long, Integer> arrivals = new TreeMap<>();
    for (int i = 0; i < stages.size(); i++) {
      if (released[i]) {
        continue;
      }
      Trace.Stage stage = stages.get(i);
      long at = stage.releaseAtMillis();
      if (stage.afterPrevious() && i > 0) {
        int previous = i - 1;
        if (!released[previous] || pendingPerStage[previous] > 0) {
          continue;
        }
        at = Math.max(at, runningPerStage[previous] == 0 ? now : lastEndPerStage[previous]);
      }
      if (at <= until) {
        arrivals.merge(Math.max(at, now), stage.taskMillis().length, Integer::sum);
      }
    }
    int arrived = 0;
    for (Map.Entry<Long, Integer> a : arrivals.entrySet()) {
      arrived += a.getValue();
      int stillRunning = 0;
      for (int count : runningEnds.tailMap(a.getKey(), false).values()) {
        stillRunning += count;
      }
      most = Math.max(most, (long) pending + stillRunning + arrived);
    }
    long executors = (most + model.slotsPerExecutor() - 1) / model.slotsPerExecutor();
    return (int) Math.min(Integer.MAX_VALUE, executors);
  }

  private void at(long atMillis, Runnable action) {
    events.add(new Event(atMillis, seq++, action));
  }

  /** The driver's tick: evaluate, declare the target when it changed, kill what the policy chose. */
  private void policyTick() {
    List<IdleExecutor> idle = scheduler.idleExecutors();
    Decision d = policy.evaluate(now, scheduler.pendingTasks(),
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
    peak = Math.max(peak, scheduler.activeExecutors());
    checkRamp();
    startTasks();
  }

  /** Stops the ramp stopwatch once it runs and enough executors are registered (0 if already). */
  private void checkRamp() {
    if (trace.rampTo() > 0 && rampMillis < 0 && now >= trace.rampFromMillis()
        && scheduler.activeExecutors() >= trace.rampTo()) {
      rampMillis = now - trace.rampFromMillis();
    }
  }

  private void release(int stage) {
    long[] tasks = trace.stages().get(stage).taskMillis();
    scheduler.submit(stage, tasks);
    released[stage] = true;
    submittedAt[stage] = now;
    pendingPerStage[stage] += tasks.length;
    checkRamp();
    if (remainingPerStage[stage] == 0) {
      stageDone(stage);
    }
    startTasks();
  }

  private void startTasks() {
    for (SimulatedScheduler.Start s : scheduler.assign()) {
      long end = now + s.durationMillis();
      int stage = s.stage();
      pendingPerStage[stage]--;
      runningPerStage[stage]++;
      lastEndPerStage[stage] = Math.max(lastEndPerStage[stage], end);
      runningEnds.merge(end, 1, Integer::sum);
      int width = Math.min(trace.stages().get(stage).taskMillis().length, fullWidthTasks);
      if (fullWidthAt[stage] < 0 && runningPerStage[stage] >= width) {
        fullWidthAt[stage] = now;
      }
      at(end, () -> taskFinished(s));
    }
  }

  private void taskFinished(SimulatedScheduler.Start s) {
    scheduler.taskFinished(s.executorId(), now);
    runningPerStage[s.stage()]--;
    runningEnds.merge(now, -1, (a, b) -> a + b == 0 ? null : a + b);
    if (--remainingPerStage[s.stage()] == 0) {
      stageDone(s.stage());
    }
    startTasks();
  }

  private void stageDone(int stage) {
    completedAt[stage] = now;
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
