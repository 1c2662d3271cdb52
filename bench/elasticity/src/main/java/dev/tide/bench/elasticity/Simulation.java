package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.BatchAllocationPolicy.Decision;
import dev.tide.driver.alloc.BatchAllocationPolicy.Load;
import dev.tide.driver.alloc.ClusterHeadroom;
import dev.tide.driver.alloc.DemandForecast;
import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.alloc.StageOutlook;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
    Decision evaluate(long nowMillis, Load load);

    /** An executor registered this long after its container was granted. */
    default void executorStarted(long startLatencyMillis) {}
  }

  /** Tide's policy as a strategy: fed exactly as the driver feeds it. */
  static Allocation of(BatchAllocationPolicy policy) {
    return new Allocation() {
      @Override
      public Decision evaluate(long nowMillis, Load load) {
        return policy.evaluate(nowMillis, load);
      }

      @Override
      public void executorStarted(long startLatencyMillis) {
        policy.executorStarted(startLatencyMillis);
      }
    };
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
      long rampMillis, boolean finished, List<StageTimes> stages, Account account,
      double meanJobLatencyMillis) {
    double executorSeconds() {
      return executorMillis / 1000.0;
    }
  }

  /**
   * Where the executor time went, in milliseconds; the parts add up to the executor time.
   *
   * @param startUpMillis from grant to registration, of executors that ran a task
   * @param busyMillis with at least one task running
   * @param idleReusedMillis idle, and a task came later (including registration to first task)
   * @param idleReleasedMillis idle from the last task to the release (or the run's end)
   * @param neverUsedMillis whole containers that never ran a task (over-asking)
   */
  record Account(long startUpMillis, long busyMillis, long idleReusedMillis,
      long idleReleasedMillis, long neverUsedMillis) {}

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
  /** Per stage: the index of its job's first stage; run times of finished tasks; starts. */
  private final int[] jobOf;
  private final List<List<Long>> finishedPerStage = new ArrayList<>();
  private final long[][] sortedFinished;
  private final List<TreeMap<Long, Integer>> startsPerStage = new ArrayList<>();
  private final long[] firstFinishAt;
  private final long[] lastFinishAt;
  private long tasksSubmitted;
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
    this.cluster = new SimulatedCluster(
        trace.queueCapacity() > 0 ? trace.queueCapacity() : model.capacity(),
        model.startLatencyMillis(), model.startJitterMillis(), model.seed());
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
      finishedPerStage.add(new ArrayList<>());
      startsPerStage.add(new TreeMap<>());
    }
    this.jobOf = trace.jobOf();
    this.sortedFinished = new long[stages][];
    this.firstFinishAt = new long[stages];
    this.lastFinishAt = new long[stages];
    Arrays.fill(firstFinishAt, -1);
    Arrays.fill(lastFinishAt, -1);
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

  private static final String DEBUG = System.getProperty("bench.debug");
  private static final String TAILS = System.getProperty("bench.tails");
  private static final String JOBS = System.getProperty("bench.jobs");
  private final Map<Integer, String> jobArrivals = new HashMap<>();
  private String currentStrategy;

  private Result run(String strategy) {
    currentStrategy = strategy;
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
    List<StageTimes> stageTimes = new ArrayList<>();
    for (int i = 0; i < stages.size(); i++) {
      stageTimes.add(new StageTimes(submittedAt[i], fullWidthAt[i], completedAt[i]));
    }
    scheduler.endRun(end);
    return new Result(strategy, end, cluster.executorMillis(end),
        trace.workMillis() / model.slotsPerExecutor(), cluster.targetChanges(),
        cluster.requested(), cluster.cancelled(), cluster.killed(), cluster.containersGranted(),
        peak, rampMillis, finished, List.copyOf(stageTimes), account(end),
        meanJobLatency(end));
  }

  /** Splits every container's time from grant to release (or {@code end}). */
  private Account account(long end) {
    long startUp = 0;
    long busy = 0;
    long reused = 0;
    long released = 0;
    long never = 0;
    for (SimulatedCluster.Container c : cluster.containers()) {
      long until = c.releasedAtMillis < 0 ? end : Math.min(c.releasedAtMillis, end);
      long total = Math.max(0, until - c.grantedAtMillis);
      SimulatedScheduler.Usage u = scheduler.usage(c.executorId);
      if (u == null || !u.used) {
        never += total;
        continue;
      }
      startUp += c.readyAtMillis - c.grantedAtMillis;
      busy += u.busyMillis;
      reused += u.idleThenReusedMillis;
      released += total - (c.readyAtMillis - c.grantedAtMillis) - u.busyMillis
          - u.idleThenReusedMillis;
    }
    return new Account(startUp, busy, reused, released, never);
  }

  /** Mean time from a job's arrival to its last stage's completion (unfinished: to end). */
  private double meanJobLatency(long end) {
    List<Integer> starts = trace.jobStarts();
    double sum = 0;
    for (int j = 0; j < starts.size(); j++) {
      int first = starts.get(j);
      int last = j + 1 < starts.size() ? starts.get(j + 1) - 1 : jobOf.length - 1;
      long done = completedAt[last] < 0 ? end : completedAt[last];
      sum += done - trace.stages().get(first).releaseAtMillis();
      if (JOBS != null && JOBS.equals(currentStrategy)) {
        StringBuilder shape = new StringBuilder();
        for (int i = first; i <= last; i++) {
          long[] t = trace.stages().get(i).taskMillis();
          shape.append(t.length).append('x').append(Arrays.stream(t).sum() / t.length)
              .append(' ');
        }
        System.out.printf(java.util.Locale.ROOT, "  job %d at %.1f: %s-> %.1f s; at arrival %s%n",
            j, trace.stages().get(first).releaseAtMillis() / 1000.0, shape,
            (done - trace.stages().get(first).releaseAtMillis()) / 1000.0,
            jobArrivals.get(first));
      }
    }
    return sum / starts.size();
  }

  /**
   * What the driver of each running job knows of its stages, as the real scheduler reports it
   * ({@code JobScheduler#stageOutlook}): the stages not complete of every job that has started,
   * each behind the previous stage of its job.
   */
  private DemandForecast.Forecast forecast(int activeExecutors) {
    List<StageOutlook> outlook = new ArrayList<>();
    for (int i = 0; i < remainingPerStage.length; i++) {
      if (completedAt[i] >= 0 || !released[jobOf[i]]) {
        continue;
      }
      List<Integer> parents = i > jobOf[i] ? List.of(i - 1) : List.of();
      TreeMap<Long, Integer> starts = startsPerStage.get(i);
      long[] elapsed = new long[runningPerStage[i]];
      int k = 0;
      for (Map.Entry<Long, Integer> e : starts.entrySet()) {
        for (int c = 0; c < e.getValue(); c++) {
          elapsed[k++] = now - e.getKey();
        }
      }
      outlook.add(new StageOutlook(i, parents, trace.stages().get(i).taskMillis().length,
          released[i], false, pendingPerStage[i], elapsed, finishedAscending(i),
          firstFinishAt[i] < 0 ? -1 : now - firstFinishAt[i],
          lastFinishAt[i] < 0 ? -1 : now - lastFinishAt[i]));
    }
    if (TAILS != null && TAILS.equals(currentStrategy) && now % 5000 == 0) {
      for (StageOutlook o : outlook) {
        if (o.submitted() && o.pendingTasks() == 0 && o.runningTasks() > 0
            && o.runningTasks() < 20) {
          long[] fin = o.finishedMillis();
          System.out.printf(java.util.Locale.ROOT, "  t=%.0f stage %d running %s; finished %d,"
              + " median %d, top %s%n",
              now / 1000.0, o.id(), Arrays.toString(o.runningElapsedMillis()), fin.length,
              fin.length == 0 ? 0 : fin[fin.length / 2],
              Arrays.toString(Arrays.copyOfRange(fin, Math.max(0, fin.length - 8), fin.length)));
        }
      }
    }
    return DemandForecast.of(outlook, model.slotsPerExecutor(), DemandForecast.executorsExpected(
        activeExecutors, cluster.allocated() - activeExecutors, Math.max(0, lastTarget),
        cluster.grantableExecutors()));
  }

  private long[] finishedAscending(int stage) {
    List<Long> finished = finishedPerStage.get(stage);
    long[] sorted = sortedFinished[stage];
    if (sorted == null || sorted.length != finished.size()) {
      sorted = new long[finished.size()];
      for (int i = 0; i < sorted.length; i++) {
        sorted[i] = finished.get(i);
      }
      Arrays.sort(sorted);
      sortedFinished[stage] = sorted;
    }
    return sorted;
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
    int active = scheduler.activeExecutors();
    DemandForecast.Forecast f = forecast(active);
    Decision d = policy.evaluate(now, new Load(scheduler.pendingTasks(),
        scheduler.runningTasks(), active, idle, f, tasksSubmitted));
    if (DEBUG != null && DEBUG.equals(currentStrategy) && (now % 1000 == 0
        || d.targetExecutors() != lastTarget || !d.executorsToRemove().isEmpty())) {
      System.out.printf(java.util.Locale.ROOT, "t=%7.1f pend=%5d run=%4d act=%4d idle=%4d"
          + " held=%4d target=%4d->%4d kill=%3d up=%s%n", now / 1000.0,
          scheduler.pendingTasks(), scheduler.runningTasks(), active, idle.size(),
          cluster.allocated(), lastTarget, d.targetExecutors(),
          d.executorsToRemove().size(), f.upcoming().stream().map(u -> u.stageId() + ":"
              + u.tasks() + "@" + (u.runnableInMillis() / 100) / 10.0 + "s/"
              + Math.round(u.parentsFinishedShare() * 100) + "%").toList());
    }
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
    cluster.heartbeat((container, readyAt) -> at(readyAt, () -> {
      policy.executorStarted(readyAt - container.grantedAtMillis);
      executorReady(container.executorId);
    }));
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
    if (JOBS != null && jobOf[stage] == stage) {
      jobArrivals.put(stage, String.format(java.util.Locale.ROOT, "active %d (idle %d)"
          + " allocated %d target %d", scheduler.activeExecutors(),
          scheduler.idleExecutors().size(), cluster.allocated(), lastTarget));
    }
    scheduler.submit(stage, tasks);
    tasksSubmitted += tasks.length;
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
    for (SimulatedScheduler.Start s : scheduler.assign(now)) {
      long end = now + s.durationMillis();
      int stage = s.stage();
      startsPerStage.get(stage).merge(now, 1, Integer::sum);
      pendingPerStage[stage]--;
      runningPerStage[stage]++;
      lastEndPerStage[stage] = Math.max(lastEndPerStage[stage], end);
      runningEnds.merge(end, 1, Integer::sum);
      int width = Math.min(trace.stages().get(stage).taskMillis().length, fullWidthTasks);
      if (fullWidthAt[stage] < 0 && runningPerStage[stage] >= width) {
        fullWidthAt[stage] = now;
      }
      long startedAt = now;
      at(end, () -> taskFinished(s, startedAt));
    }
  }

  private void taskFinished(SimulatedScheduler.Start s, long startedAt) {
    scheduler.taskFinished(s.executorId(), now);
    startsPerStage.get(s.stage()).merge(startedAt, -1, (a, b) -> a + b == 0 ? null : a + b);
    finishedPerStage.get(s.stage()).add(now - startedAt);
    if (firstFinishAt[s.stage()] < 0) {
      firstFinishAt[s.stage()] = now;
    }
    lastFinishAt[s.stage()] = now;
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
      long at = trace.stages().get(next).releaseAtMillis();
      if (at <= now) {
        // As the driver's scheduler does: a stage is submitted as its last parent completes,
        // with no evaluation of the policy in between.
        release(next);
      } else {
        at(at, () -> release(next));
      }
    }
  }
}
