package dev.tide.driver.scheduler;

import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.JobPlan;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task assignment (Spark's TaskSetManager, for every stage of the running plan at once): the
 * executors and their free slots, the task attempts running on them, and which pending task of a
 * runnable stage goes to which free slot: the executor holding a task's cached block first, then
 * a map task local to the executor's host, then any; stragglers get one speculative attempt on
 * another executor. An executor's end puts its running tasks back to pending.
 *
 * <p>The stages themselves (their DAG, pending tasks, outputs) belong to the stage scheduler
 * ({@link JobScheduler}), which this class reads through {@link Stages}. Not thread-safe: the
 * driver's event loop owns it. Time comes from the injected clock.
 */
final class TaskAssignment {
  private static final Logger LOG = LoggerFactory.getLogger(TaskAssignment.class);

  /** What task assignment reads of the stage scheduler. */
  interface Stages {
    /** The running plan's stages, by their id within the plan. */
    List<StageProgress> all();

    /** The id a stage of the running plan has in tasks, events and shuffle files. */
    int globalId(int localStageId);

    /** Queued once its parents' outputs all existed, and they all exist now. */
    boolean isRunnable(StageProgress stage);

    /** A new attempt of task {@code index} of {@code stage}. */
    TaskDescription newTask(StageProgress stage, int index);

    /** The stage of the running plan a task belongs to. */
    StageProgress stageOf(TaskDescription task);

    /** Outputs set so far (a task started now cannot have read one set later). */
    long outputSequence();
  }

  /**
   * @param outputsBefore the stage scheduler's output sequence when it started: outputs set
   *     later are ones it cannot have read
   */
  record Running(TaskDescription task, String executorId, long startMillis,
      long outputsBefore) {}

  /**
   * How a running attempt ended, as {@link #taskEnded} found it.
   *
   * @param executor the executor that ran it, or null when it has gone meanwhile
   * @param beaten another attempt of the same task had already succeeded
   */
  record Ended(Running attempt, ExecutorSlots executor, boolean beaten) {}

  /** An executor as the scheduler sees it. */
  static final class ExecutorSlots {
    final String id;
    final String host;
    final int shufflePort;
    int busy;
    boolean pendingRemoval;
    /** It reported running out of heap and exits to be replaced: no new tasks. */
    boolean exiting;
    /**
     * Its node is leaving (decommissioning) or YARN takes its container back (preemption): no
     * new tasks; its running tasks may finish.
     */
    boolean draining;
    long idleSinceMillis;

    ExecutorSlots(String id, String host, int shufflePort, long now) {
      this.id = id;
      this.host = host;
      this.shufflePort = shufflePort;
      this.idleSinceMillis = now;
    }
  }

  private final int slotsPerExecutor;
  private final LongSupplier clock;
  private final EventLog events;
  private final Stages stages;
  private final Map<String, ExecutorSlots> executors = new LinkedHashMap<>();
  private final Map<Long, Running> running = new HashMap<>();
  /** Attempts of earlier plans still running: their reports only free their slots. */
  private final Map<Long, String> strays = new HashMap<>();
  private final CachedBlocks cachedBlocks = new CachedBlocks();
  /** Which stragglers get a speculative attempt; null: speculation off. */
  private SpeculationRule speculation;
  private long taskMillis;

  TaskAssignment(int slotsPerExecutor, LongSupplier clock, EventLog events, Stages stages) {
    this.slotsPerExecutor = slotsPerExecutor;
    this.clock = clock;
    this.events = events;
    this.stages = stages;
  }

  /**
   * A new plan starts: attempts of the previous one still running become strays (their reports
   * only free their slots); executors and the cached blocks they hold carry over.
   */
  void newPlan() {
    for (Running r : running.values()) {
      strays.put(r.task().taskId(), r.executorId());
    }
    running.clear();
  }

  /** Turns speculative execution on with this rule ({@code tide.speculation}); null: off. */
  void speculation(SpeculationRule rule) {
    this.speculation = rule;
  }

  /**
   * Looks for stragglers ({@link SpeculationRule}) among the running tasks of each stage; they
   * get a speculative attempt on another executor at the next {@link #assignTasks}.
   *
   * @return whether a new straggler was found
   */
  boolean findStragglers() {
    if (speculation == null) {
      return false;
    }
    long now = clock.getAsLong();
    Map<Integer, List<Running>> byIndex = new HashMap<>();
    boolean found = false;
    for (int id = 0; id < stages.all().size(); id++) {
      StageProgress stage = stages.all().get(id);
      if (!stage.submitted || stage.isComplete()) {
        continue;
      }
      byIndex.clear();
      for (Running r : running.values()) {
        if (r.task().stageId() == stages.globalId(id)) {
          byIndex.computeIfAbsent(r.task().index(), k -> new ArrayList<>()).add(r);
        }
      }
      List<SpeculationRule.RunningTask> alone = new ArrayList<>();
      for (Map.Entry<Integer, List<Running>> e : byIndex.entrySet()) {
        int index = e.getKey();
        if (e.getValue().size() == 1 && !stage.isDone(index) && !stage.speculated.contains(index)
            && !stage.speculatable.containsKey(index)) {
          alone.add(new SpeculationRule.RunningTask(index, e.getValue().get(0).startMillis()));
        }
      }
      for (SpeculationRule.Straggler st : speculation.stragglers(stage.stage.tasks(),
          stage.finishedMillisAscending(), alone, now)) {
        stage.speculatable.put(st.index(), st);
        found = true;
      }
    }
    return found;
  }

  /** host -> shuffle port of the node of every executor that runs (not exiting). */
  Map<String, Integer> liveShuffleServices() {
    Map<String, Integer> services = new LinkedHashMap<>();
    for (ExecutorSlots e : executors.values()) {
      if (!e.exiting && e.shufflePort > 0) {
        services.putIfAbsent(e.host, e.shufflePort);
      }
    }
    return services;
  }

  void executorAdded(String executorId, String host, int shufflePort) {
    executors.put(executorId, new ExecutorSlots(executorId, host, shufflePort,
        clock.getAsLong()));
  }

  /** The executor is gone; its running tasks go back to pending (not counted as failures). */
  void executorLost(String executorId, String reason) {
    if (executors.remove(executorId) == null) {
      return;
    }
    List<Running> lost = new ArrayList<>();
    for (Iterator<Running> it = running.values().iterator(); it.hasNext(); ) {
      Running r = it.next();
      if (r.executorId().equals(executorId)) {
        it.remove();
        lost.add(r);
        LOG.info("Task {} lost with executor {} ({}); it will run again",
            r.task().describe(), executorId, reason);
        events.record(EventName.TASK_END, "task", r.task().taskId(), "stage", r.task().stageId(),
            "kind", r.task().kind(), "index", r.task().index(), "attempt", r.task().attempt(),
            "executor", executorId, "result", "EXECUTOR_LOST");
      }
    }
    for (Running r : lost) {
      requeueUnlessRunning(stages.stageOf(r.task()), r.task().index());
    }
    strays.values().removeIf(executorId::equals);
    int lostBlocks = cachedBlocks.executorLost(executorId);
    if (lostBlocks > 0) {
      LOG.info("Executor {} took {} cached blocks with it; they will be read again from their"
          + " splits", executorId, lostBlocks);
      events.record(EventName.CACHED_BLOCKS_LOST, "executor", executorId, "blocks", lostBlocks);
    }
    // Map outputs stay where they are: the node's tide_shuffle service serves them.
  }

  /** Marks executors that are about to be killed: they get no new tasks. */
  void markPendingRemoval(Collection<String> executorIds) {
    for (String id : executorIds) {
      ExecutorSlots e = executors.get(id);
      if (e != null) {
        e.pendingRemoval = true;
      }
    }
  }

  /**
   * Marks executors whose node leaves or whose container YARN takes back: they get no new
   * tasks, their running tasks may finish.
   */
  void drain(Collection<String> executorIds) {
    for (String id : executorIds) {
      ExecutorSlots e = executors.get(id);
      if (e != null) {
        e.draining = true;
      }
    }
  }

  /** Draining executors with no task left running and not yet marked for removal. */
  List<String> idleDraining() {
    List<String> idle = new ArrayList<>();
    for (ExecutorSlots e : executors.values()) {
      if (e.draining && e.busy == 0 && !e.pendingRemoval) {
        idle.add(e.id);
      }
    }
    return idle;
  }

  /** What each executor does now (for the AM's choice of containers to give back). */
  List<ExecutorActivity> activity() {
    Map<String, Long> lastStart = new HashMap<>();
    for (Running r : running.values()) {
      lastStart.merge(r.executorId(), r.startMillis(), Math::max);
    }
    List<ExecutorActivity> activity = new ArrayList<>(executors.size());
    for (ExecutorSlots e : executors.values()) {
      activity.add(new ExecutorActivity(e.id, e.busy, lastStart.getOrDefault(e.id, 0L),
          e.idleSinceMillis));
    }
    return activity;
  }

  /** True while the executor is known and marked for removal. */
  boolean isPendingRemoval(String executorId) {
    ExecutorSlots e = executors.get(executorId);
    return e != null && e.pendingRemoval;
  }

  /** Hands pending tasks to free slots, preferring executors on a task's preferred hosts. */
  List<JobScheduler.Assignment> assignTasks() {
    List<JobScheduler.Assignment> assignments = new ArrayList<>();
    boolean progress = true;
    while (progress) {
      progress = false;
      for (ExecutorSlots e : executors.values()) {
        if (e.pendingRemoval || e.exiting || e.draining || e.busy >= slotsPerExecutor) {
          continue;
        }
        Optional<TaskDescription> task = nextTaskFor(e);
        if (task.isPresent()) {
          e.busy++;
          running.put(task.get().taskId(), new Running(task.get(), e.id, clock.getAsLong(),
              stages.outputSequence()));
          assignments.add(new JobScheduler.Assignment(e.id, task.get()));
          events.record(EventName.TASK_START, "task", task.get().taskId(), "stage",
              task.get().stageId(), "kind", task.get().kind(), "index", task.get().index(),
              "attempt", task.get().attempt(), "executor", e.id, "host", e.host);
          progress = true;
        }
      }
    }
    return assignments;
  }

  /**
   * A runnable stage's next task for executor {@code e}, earlier stages first: a task whose
   * cached block {@code e} holds first, then a map task local to its host; a task whose block
   * another usable executor holds waits for that one.
   */
  private Optional<TaskDescription> nextTaskFor(ExecutorSlots e) {
    StageProgress first = null;
    Integer firstIndex = null;
    for (StageProgress stage : stages.all()) {
      if (!stages.isRunnable(stage) || stage.pending.isEmpty() || !readsCachedBlocks(stage)) {
        continue; // no task of a stage without cached blocks has a holder
      }
      for (Integer index : stage.pending) {
        String holder = holderOf(stage, index);
        if (e.id.equals(holder)) {
          stage.pending.remove(index);
          return Optional.of(stages.newTask(stage, index));
        }
      }
    }
    for (StageProgress stage : stages.all()) {
      if (!stages.isRunnable(stage) || stage.pending.isEmpty()) {
        continue;
      }
      boolean input = stage.stage.isInput();
      if (!input && first != null) {
        continue; // no task of it is local to a host: it cannot come before the first
      }
      for (Integer index : stage.pending) {
        if (holderOf(stage, index) != null) {
          continue; // waits for the executor that holds its block
        }
        if (first == null) {
          first = stage;
          firstIndex = index;
        }
        if (!input) {
          break; // no task of it is local to a host: the rest changes nothing
        }
        if (stage.stage.splits().get(index).preferredHosts().contains(e.host)) {
          stage.pending.remove(index);
          return Optional.of(stages.newTask(stage, index));
        }
      }
    }
    if (first == null) {
      return speculativeTaskFor(e);
    }
    first.pending.remove(firstIndex);
    return Optional.of(stages.newTask(first, firstIndex));
  }

  /**
   * A speculative attempt of a straggler for {@code e}: never on the executor running it, and on
   * its host only when no usable executor of another host has a free slot.
   */
  private Optional<TaskDescription> speculativeTaskFor(ExecutorSlots e) {
    for (StageProgress stage : stages.all()) {
      if (stage.speculatable.isEmpty() || !stages.isRunnable(stage)) {
        continue;
      }
      for (Iterator<SpeculationRule.Straggler> it = stage.speculatable.values().iterator();
          it.hasNext(); ) {
        SpeculationRule.Straggler st = it.next();
        Running original = runningAttempt(stage, st.index());
        if (original == null || stage.isDone(st.index())) {
          it.remove(); // it ended meanwhile
          continue;
        }
        ExecutorSlots on = executors.get(original.executorId());
        String host = on == null ? "" : on.host;
        if (e.id.equals(original.executorId())
            || (e.host.equals(host) && freeSlotOffHost(host))) {
          continue;
        }
        it.remove();
        stage.speculated.add(st.index());
        TaskDescription copy = stages.newTask(stage, st.index());
        LOG.info("Task {} on executor {} ({}) has run {} ms, over {} ms ({} x the median of its"
            + " stage's succeeded tasks, at least tide.speculation.minTaskRuntime): speculative"
            + " attempt {} on executor {} ({})", original.task().describe(),
            original.executorId(), host, st.runningMillis(), st.thresholdMillis(),
            "tide.speculation.multiplier", copy.attempt(), e.id, e.host);
        events.record(EventName.TASK_SPECULATED, "task", copy.taskId(), "of", original.task().taskId(),
            "stage", copy.stageId(), "index", copy.index(), "attempt", copy.attempt(),
            "executor", e.id, "host", e.host, "runningMs", st.runningMillis(), "thresholdMs",
            st.thresholdMillis());
        return Optional.of(copy);
      }
    }
    return Optional.empty();
  }

  private Running runningAttempt(StageProgress stage, int index) {
    for (Running r : running.values()) {
      if (r.task().stageId() == stages.globalId(stage.stage.id()) && r.task().index() == index) {
        return r;
      }
    }
    return null;
  }

  /** Whether a usable executor on a host other than {@code host} has a free slot. */
  private boolean freeSlotOffHost(String host) {
    for (ExecutorSlots x : executors.values()) {
      if (!x.host.equals(host) && !x.pendingRemoval && !x.exiting && !x.draining
          && x.busy < slotsPerExecutor) {
        return true;
      }
    }
    return false;
  }

  /** Whether the stage's tasks read a cached dataset (only they can have a block holder). */
  private static boolean readsCachedBlocks(StageProgress stage) {
    JobPlan.Dataset data = stage.stage.dataset();
    return data != null && data.cached();
  }

  /** The usable executor that holds this task's cached block, or null. */
  private String holderOf(StageProgress stage, int index) {
    if (!readsCachedBlocks(stage)) {
      return null;
    }
    String holder = cachedBlocks.holder(stage.stage.dataset().name(), index);
    ExecutorSlots e = holder == null ? null : executors.get(holder);
    return e == null || e.pendingRemoval || e.exiting || e.draining ? null : holder;
  }

  /** Queues the task again, unless another attempt of it (a speculative one) still runs. */
  void requeueUnlessRunning(StageProgress stage, int index) {
    if (runningAttempt(stage, index) == null) {
      stage.requeue(index);
    }
  }

  /** Whether an attempt of a task of this stage (id within the plan) runs. */
  boolean hasRunning(int stageId) {
    for (Running r : running.values()) {
      if (r.task().stageId() == stages.globalId(stageId)) {
        return true;
      }
    }
    return false;
  }

  /** Whether an attempt of task {@code index} of this stage (id within the plan) runs. */
  boolean isRunning(int stageId, int index) {
    return runningAttempt(stages.all().get(stageId), index) != null;
  }

  /**
   * Applies an executor's report of how a task attempt ended to the slots and records its
   * {@code taskEnd}; null when the attempt is not one of the running plan (a stray of an earlier
   * plan, or a late report of an attempt already requeued): then there is nothing else to do.
   */
  Ended taskEnded(TaskOutcome outcome) {
    Running r = running.remove(outcome.taskId());
    if (r == null) {
      String stray = strays.remove(outcome.taskId());
      ExecutorSlots e = stray == null ? null : executors.get(stray);
      if (e != null) {
        e.busy--; // an attempt of an earlier plan, no longer needed
      }
      return null; // else a late report from an attempt already requeued
    }
    TaskDescription task = r.task();
    taskMillis += clock.getAsLong() - r.startMillis();
    ExecutorSlots e = executors.get(r.executorId());
    if (e != null) {
      e.busy--;
      if (e.busy == 0) {
        e.idleSinceMillis = clock.getAsLong();
      }
    }
    List<Object> fields = new ArrayList<>(List.<Object>of("task", task.taskId(), "stage",
        task.stageId(), "kind", task.kind(), "index", task.index(), "attempt", task.attempt(),
        "executor", r.executorId(), "result", outcome.state()));
    outcome.metrics().forEach((k, v) -> {
      fields.add(k);
      fields.add(v);
    });
    // Another attempt of the task (a speculative copy, or the original) already succeeded.
    boolean beaten = stages.stageOf(task).isDone(task.index());
    if (beaten) {
      fields.add("beaten");
      fields.add(true);
    }
    if (outcome.state() != TaskOutcome.State.SUCCEEDED) {
      fields.add("reason");
      fields.add(JobScheduler.cut(outcome.message()));
    }
    if (outcome.state() == TaskOutcome.State.FETCH_FAILED) {
      fields.add("cause");
      fields.add(outcome.lossCause());
    }
    events.record(EventName.TASK_END, fields.toArray());
    if (e != null && (outcome.metrics().getOrDefault(TaskOutcome.EXECUTOR_OUT_OF_MEMORY, 0L) > 0
        || outcome.metrics().getOrDefault(TaskOutcome.EXECUTOR_EXITING, 0L) > 0)) {
      e.exiting = true; // it exits after this report; a new executor replaces it
    }
    return new Ended(r, e, beaten);
  }

  /** Whether the executor now holds the block the task read ({@code cachedBlock} metric). */
  void noteCachedBlock(TaskDescription task, String executorId, TaskOutcome outcome) {
    if (task.dataset() == null || !task.dataset().cache()) {
      return;
    }
    boolean holds = outcome.metrics().getOrDefault(TaskOutcome.CACHED_BLOCK, 0L) > 0;
    if (executors.containsKey(executorId)) {
      cachedBlocks.reported(task.dataset().name(), task.index(), executorId, holds);
    }
  }

  int runningTasks() {
    return running.size();
  }

  /** How long each running attempt has run as of {@code nowMillis}, by its global stage id. */
  Map<Integer, List<Long>> runningElapsedByStage(long nowMillis) {
    Map<Integer, List<Long>> elapsed = new HashMap<>();
    for (Running r : running.values()) {
      elapsed.computeIfAbsent(r.task().stageId(), id -> new ArrayList<>())
          .add(nowMillis - r.startMillis());
    }
    return elapsed;
  }

  List<IdleExecutor> idleExecutors() {
    List<IdleExecutor> idle = new ArrayList<>();
    for (ExecutorSlots e : executors.values()) {
      if (e.busy == 0 && !e.pendingRemoval && !e.exiting && !e.draining) {
        idle.add(new IdleExecutor(e.id, e.idleSinceMillis, cachedBlocks.holdsAny(e.id)));
      }
    }
    return idle;
  }

  /** Executors that can take tasks (registered and not pending removal). */
  int activeExecutors() {
    int n = 0;
    for (ExecutorSlots e : executors.values()) {
      if (!e.pendingRemoval && !e.exiting && !e.draining) {
        n++;
      }
    }
    return n;
  }

  /** Run time of every task attempt that reported its end, summed, since this began. */
  long taskMillis() {
    return taskMillis;
  }
}
