package dev.tide.driver.scheduler;

import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.alloc.SchedulerView;
import dev.tide.driver.alloc.StageOutlook;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskDescription.Kind;
import dev.tide.rpc.TaskOutcome;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stage scheduler of one job (Spark's DAGScheduler): runs the stages of its {@link JobPlan}
 * in dependency order. An input stage's map tasks are queued at once; a shuffle stage's tasks
 * once every output of each parent stage exists. It keeps the map-output table (where each
 * stage's outputs are served), counts failed attempts per task, and reruns outputs a reduce task
 * could not fetch (and, when a stage needs them again, any outputs lost since). Which queued task
 * goes to which executor, the running attempts and speculation are {@link TaskAssignment}'s.
 *
 * <p>Not thread-safe: the driver's event loop owns it. Time comes from the injected clock.
 */
public final class JobScheduler implements SchedulerView {
  private static final Logger LOG = LoggerFactory.getLogger(JobScheduler.class);

  private JobPlan plan;
  /** Global id of the current plan's first stage: stage and shuffle ids are unique per app. */
  private int stageBase;
  private final int maxAttempts;
  private int maxFetchFailures;
  private final int maxFetchFailureRounds;
  private final LongSupplier clock;
  private final EventLog events;

  private final List<StageProgress> stages = new ArrayList<>();
  /** The executors, their slots and the attempts running on them. */
  private final TaskAssignment tasks;
  private int fetchFailures;
  /** Map outputs lost because the serving node found them damaged on its disk. */
  private int damagedMapOutputs;
  /** Rounds of reruns after fetch failures since a shuffle-reading task last succeeded. */
  private int fetchFailureRounds;
  /** Stages whose outputs lost in the current round are still being recomputed. */
  private final Set<Integer> rerunStages = new HashSet<>();
  private long nextTaskId = 1;
  private String failure;

  /** Tasks queued by stage submissions since this scheduler began (reruns not counted). */
  private long tasksSubmitted;

  /** Counts outputs set; each output remembers its number ({@link StageProgress#setOutput}). */
  private long outputSequence;

  /** A task handed to an executor. */
  public record Assignment(String executorId, TaskDescription task) {}

  public JobScheduler(JobPlan plan, int slotsPerExecutor, int maxAttempts, LongSupplier clock,
      EventLog events) {
    this(plan, slotsPerExecutor, maxAttempts, DEFAULT_FETCH_FAILURE_ROUNDS, clock, events);
  }

  /** As Spark's {@code spark.stage.maxConsecutiveAttempts}. */
  public static final int DEFAULT_FETCH_FAILURE_ROUNDS = 4;

  /**
   * @param maxFetchFailureRounds rounds of output reruns after fetch failures, with no
   *     shuffle-reading task succeeding in between, after which the job fails
   *     ({@code tide.stage.maxConsecutiveAttempts})
   */
  public JobScheduler(JobPlan plan, int slotsPerExecutor, int maxAttempts,
      int maxFetchFailureRounds, LongSupplier clock, EventLog events) {
    this(slotsPerExecutor, maxAttempts, maxFetchFailureRounds, clock, events);
    runPlan(plan);
  }

  /** A scheduler with no plan yet: {@link #runPlan} starts each plan of the job in turn. */
  public JobScheduler(int slotsPerExecutor, int maxAttempts, int maxFetchFailureRounds,
      LongSupplier clock, EventLog events) {
    this.maxFetchFailureRounds = maxFetchFailureRounds;
    this.maxAttempts = maxAttempts;
    this.clock = clock;
    this.events = events;
    this.tasks = new TaskAssignment(slotsPerExecutor, clock, events, new PlanStages());
  }

  /**
   * Starts {@code next}, the job's next plan: executors, their idle times and the cached blocks
   * they hold carry over; its stages get ids after the previous plan's.
   */
  public void runPlan(JobPlan next) {
    if (plan != null) {
      stageBase += plan.stages().size();
    }
    tasks.newPlan();
    plan = next;
    stages.clear();
    rerunStages.clear();
    fetchFailures = 0;
    fetchFailureRounds = 0;
    failure = null;
    maxFetchFailures = Math.max(4, maxAttempts * (plan.totalTasks() - plan.last().tasks()));
    for (JobPlan.Stage stage : plan.stages()) {
      stages.add(new StageProgress(stage));
    }
    submitReadyStages();
  }

  /** The id a stage of the current plan has in tasks, events and shuffle files. */
  private int globalId(int localStageId) {
    return stageBase + localStageId;
  }

  private StageProgress stageOf(TaskDescription task) {
    return stages.get(task.stageId() - stageBase);
  }

  /** Turns speculative execution on with this rule ({@code tide.speculation}); null: off. */
  public void speculation(SpeculationRule rule) {
    tasks.speculation(rule);
  }

  /**
   * Looks for stragglers ({@link SpeculationRule}) among the running tasks of each stage; they
   * get a speculative attempt on another executor at the next {@link #assignTasks}.
   *
   * @return whether a new straggler was found
   */
  public boolean findStragglers() {
    return failure == null && tasks.findStragglers();
  }

  public void executorAdded(String executorId, String host, int shufflePort) {
    tasks.executorAdded(executorId, host, shufflePort);
  }

  /** The executor is gone; its running tasks go back to pending (not counted as failures). */
  public void executorLost(String executorId, String reason) {
    tasks.executorLost(executorId, reason);
  }

  /** Marks executors that are about to be killed: they get no new tasks. */
  public void markPendingRemoval(Collection<String> executorIds) {
    tasks.markPendingRemoval(executorIds);
  }

  /**
   * Marks executors whose node leaves (decommissioning) or whose container YARN takes back
   * (preemption): no new tasks; their running tasks may finish.
   */
  public void drain(Collection<String> executorIds) {
    tasks.drain(executorIds);
  }

  /** Draining executors with no task running and not yet marked for removal. */
  public List<String> idleDraining() {
    return tasks.idleDraining();
  }

  /** What each executor does now: running tasks, the last one's start, idle since. */
  public List<ExecutorActivity> executorActivity() {
    return tasks.activity();
  }

  /** True while the executor is known and marked for removal. */
  public boolean isPendingRemoval(String executorId) {
    return tasks.isPendingRemoval(executorId);
  }

  /** Hands pending tasks to free slots, preferring executors on a task's preferred hosts. */
  public List<Assignment> assignTasks() {
    if (failure != null) {
      return new ArrayList<>();
    }
    scheduleMissingParentOutputs();
    return tasks.assignTasks();
  }

  private TaskDescription newTask(StageProgress progress, int index) {
    JobPlan.Stage stage = progress.stage;
    boolean last = stage.consumer() < 0;
    if (stage.isInput()) {
      InputSplit split = stage.splits().get(index);
      return new TaskDescription(nextTaskId++, Kind.MAP, globalId(stage.id()), index,
          progress.attempts[index]++, stage.taskClass(), split.payload(),
          split.preferredHosts(), List.of(), plan.outputPartitions(stage.id()),
          plan.outputPartitioning(stage.id()), last ? plan.outputPath() : "",
          stage.dataset() == null ? null : new TaskDescription.DatasetBlock(
              stage.dataset().name(), stage.dataset().mapperClass(), stage.dataset().cached()),
          stage.spec());
    }
    List<TaskDescription.ShuffleInput> inputs = new ArrayList<>();
    for (int parent : stage.parents()) {
      inputs.add(new TaskDescription.ShuffleInput(globalId(parent),
          stages.get(parent).outputs()));
    }
    return new TaskDescription(nextTaskId++, Kind.REDUCE, globalId(stage.id()), index,
        progress.attempts[index]++, stage.taskClass(), new byte[0], List.of(), inputs,
        plan.outputPartitions(stage.id()), plan.outputPartitioning(stage.id()),
        last ? plan.outputPath() : "", null, stage.spec());
  }

  /** Queued once its parents' outputs all existed, and they all exist now. */
  private boolean isRunnable(StageProgress stage) {
    if (!stage.submitted) {
      return false;
    }
    for (int parent : stage.stage.parents()) {
      if (!stages.get(parent).isComplete()) {
        return false;
      }
    }
    return true;
  }

  /**
   * A stage with tasks waiting needs every output of its parents: queues each one that is
   * missing (lost with its node, or found unreadable) and is neither waiting nor running.
   */
  private void scheduleMissingParentOutputs() {
    for (int id = stages.size() - 1; id >= 0; id--) {
      StageProgress stage = stages.get(id);
      if (!stage.submitted || (stage.pending.isEmpty() && !tasks.hasRunning(id))) {
        continue;
      }
      for (int parentId : stage.stage.parents()) {
        StageProgress parent = stages.get(parentId);
        for (int i = 0; i < parent.stage.tasks(); i++) {
          if (!parent.isDone(i) && !parent.pending.contains(i) && !tasks.isRunning(parentId, i)) {
            parent.pending.add(i);
          }
        }
      }
    }
  }


  /** Applies an executor's report of how a task attempt ended. */
  public void taskEnded(TaskOutcome outcome) {
    TaskAssignment.Ended ended = tasks.taskEnded(outcome);
    if (ended == null) {
      return;
    }
    TaskAssignment.Running r = ended.attempt();
    TaskDescription task = r.task();
    TaskAssignment.ExecutorSlots e = ended.executor();
    boolean beaten = ended.beaten();
    if (beaten && outcome.state() != TaskOutcome.State.FETCH_FAILED) {
      LOG.info("Task {} ended {} after another attempt succeeded; its result is ignored",
          task.describe(), outcome.state());
      return;
    }
    switch (outcome.state()) {
      case SUCCEEDED -> {
        stageOf(task).taskSucceeded(clock.getAsLong() - r.startMillis(), clock.getAsLong());
        tasks.noteCachedBlock(task, r.executorId(), outcome);
        succeeded(task, e);
      }
      case FAILED -> failed(task, r.executorId(), outcome.message());
      case FETCH_FAILED -> fetchFailed(task, outcome, r.outputsBefore());
      default -> throw new IllegalStateException("unknown outcome " + outcome.state());
    }
  }

  private void succeeded(TaskDescription task, TaskAssignment.ExecutorSlots e) {
    StageProgress stage = stageOf(task);
    if (stage.stage.consumer() >= 0 && e == null) {
      // The executor vanished before its report was read; rerun to learn a location.
      stage.requeue(task.index());
      return;
    }
    if (!stage.stage.isInput()) {
      fetchFailureRounds = 0;
    }
    String host = e == null ? "" : e.host;
    stage.setOutput(task.index(), new MapLocation(task.index(), host,
        e == null ? 0 : e.shufflePort), ++outputSequence);
    if (!stage.isComplete()) {
      return;
    }
    rerunStages.remove(stage.stage.id());
    if (!stage.completedOnce) {
      stage.completedOnce = true;
      events.record(EventName.STAGE_COMPLETED, "stage", globalId(stage.stage.id()), "name",
          stage.stage.name());
      LOG.info("Stage {} completed ({} tasks)", stage.label(), stage.stage.tasks());
    }
    submitReadyStages();
  }

  /** Queues the tasks of every stage not yet submitted whose parents' outputs all exist. */
  private void submitReadyStages() {
    for (StageProgress stage : stages) {
      if (!stage.submitted && isParentsComplete(stage)) {
        stage.submit();
        tasksSubmitted += stage.pending.size();
        List<Integer> parents = new ArrayList<>();
        stage.stage.parents().forEach(p -> parents.add(globalId(p)));
        events.record(EventName.STAGE_SUBMITTED, "stage", globalId(stage.stage.id()), "name",
            stage.stage.name(), "tasks", stage.stage.tasks(), "parents", parents.toString());
      }
    }
  }

  private boolean isParentsComplete(StageProgress stage) {
    for (int parent : stage.stage.parents()) {
      if (!stages.get(parent).isComplete()) {
        return false;
      }
    }
    return true;
  }

  private void failed(TaskDescription task, String executorId, String message) {
    StageProgress stage = stageOf(task);
    int failures = ++stage.failures[task.index()];
    LOG.warn("Task {} failed on executor {} ({} of {} attempts): {}", task.describe(),
        executorId, failures, maxAttempts, message);
    if (failures >= maxAttempts) {
      failure = "task " + task.kind().name().toLowerCase() + " " + task.index() + " failed "
          + failures + " times (stage " + stage.label() + "); last failure on executor "
          + executorId + ": " + message;
      return;
    }
    tasks.requeueUnlessRunning(stage, task.index());
  }

  /**
   * @param outputsBefore the output sequence when the reader started: a named output set after
   *     that (its map reran meanwhile, e.g. because another reader found it damaged) is not the
   *     one the reader failed on, and is kept
   */
  private void fetchFailed(TaskDescription task, TaskOutcome outcome, long outputsBefore) {
    fetchFailures++;
    StageProgress reader = stageOf(task);
    int shuffle = outcome.lostShuffleId() - stageBase;
    if (!reader.stage.parents().contains(shuffle)) {
      failure = "task " + task.describe() + " reported a fetch failure of shuffle " + shuffle
          + ", which its stage does not read: " + outcome.message();
      return;
    }
    Map<Integer, Set<Integer>> lost = new TreeMap<>();
    Set<Integer> named = lost.computeIfAbsent(shuffle, k -> new TreeSet<>());
    for (int map : outcome.lostMapIds()) {
      if (stages.get(shuffle).outputSequence(map) > outputsBefore) {
        LOG.info("Task {} reported map output {} of stage {} lost, but it was recomputed after"
            + " the task started; keeping it", task.describe(), map, shuffle);
      } else {
        named.add(map);
      }
    }
    if (outcome.wholeServiceLost()) {
      for (StageProgress stage : stages) {
        if (stage.stage.consumer() >= 0) {
          lost.computeIfAbsent(stage.stage.id(), k -> new TreeSet<>())
              .addAll(stage.outputsAt(outcome.fetchHost(), outcome.fetchPort()));
        }
      }
    }
    LOG.warn("Task {} (partition {}) could not fetch map outputs {} (by stage) from {}:{},"
        + " cause {}; rerunning them. {}", task.describe(), task.index(), lost,
        outcome.fetchHost(), outcome.fetchPort(), outcome.lossCause(), outcome.message());
    if (fetchFailures > maxFetchFailures) {
      failure = "too many shuffle fetch failures (" + fetchFailures + "); last: "
          + outcome.message();
      return;
    }
    boolean newlyLost = false;
    for (Map.Entry<Integer, Set<Integer>> e : lost.entrySet()) {
      for (int index : e.getValue()) {
        newlyLost |= stages.get(e.getKey()).isDone(index);
      }
    }
    if (newlyLost && rerunStages.isEmpty()) {
      fetchFailureRounds++;
      if (fetchFailureRounds > maxFetchFailureRounds) {
        failure = "stage " + reader.label() + " could not fetch its input in "
            + fetchFailureRounds + " consecutive rounds of map reruns"
            + " (tide.stage.maxConsecutiveAttempts = " + maxFetchFailureRounds + "); last: "
            + task.kind().name().toLowerCase() + " " + task.index() + " from "
            + outcome.fetchHost() + ":" + outcome.fetchPort() + ": " + outcome.message();
        return;
      }
    }
    for (Map.Entry<Integer, Set<Integer>> e : lost.entrySet()) {
      StageProgress stage = stages.get(e.getKey());
      for (int index : e.getValue()) {
        if (stage.loseOutput(index)) {
          rerunStages.add(stage.stage.id());
          if (outcome.lossCause().equals(TaskOutcome.DAMAGED_ON_DISK)) {
            damagedMapOutputs++;
          }
          events.record(EventName.MAP_OUTPUT_LOST, "stage", globalId(stage.stage.id()),
              "shuffle", globalId(stage.stage.id()), "map", index, "partition", task.index(),
              "host", outcome.fetchHost(), "port", outcome.fetchPort(), "reader",
              task.describe(), "cause", outcome.lossCause(), "detail", cut(outcome.message()));
        }
      }
    }
    reader.requeue(task.index());
    scheduleMissingParentOutputs();
  }

  /** A map output the scheduler knows to be served by a node's service. */
  public record ServedOutput(int shuffleId, int mapId, int port) {}

  /**
   * The map outputs of the running plan (of stages feeding a shuffle) that the service on
   * {@code host} serves, with their shuffle ids as the files and the services name them.
   */
  public List<ServedOutput> mapOutputsOn(String host) {
    List<ServedOutput> on = new ArrayList<>();
    for (StageProgress stage : stages) {
      if (stage.stage.consumer() < 0) {
        continue;
      }
      for (MapLocation location : stage.outputs()) {
        if (location.host().equals(host)) {
          on.add(new ServedOutput(globalId(stage.stage.id()), location.mapId(),
              location.shufflePort()));
        }
      }
    }
    return on;
  }

  /** host -> shuffle port of every node where an executor of the application runs. */
  public Map<String, Integer> liveShuffleServices() {
    return tasks.liveShuffleServices();
  }

  /**
   * Moves a map output's location from one service to another (a migrated copy was confirmed),
   * if it is still where the copy came from (not lost or rerun meanwhile); reducers started from
   * now on fetch it there. The move counts as a new output: a reader that fails on the old
   * location after it does not lose it.
   *
   * @return whether it moved
   */
  public boolean moveMapOutput(int shuffleId, int mapId, String fromHost, int fromPort,
      String toHost, int toPort) {
    int local = shuffleId - stageBase;
    if (local < 0 || local >= stages.size() || stages.get(local).stage.consumer() < 0
        || mapId < 0 || mapId >= stages.get(local).stage.tasks()) {
      return false;
    }
    StageProgress stage = stages.get(local);
    for (MapLocation location : stage.outputs()) {
      if (location.mapId() == mapId) {
        if (!location.host().equals(fromHost) || location.shufflePort() != fromPort) {
          return false;
        }
        stage.setOutput(mapId, new MapLocation(mapId, toHost, toPort), ++outputSequence);
        return true;
      }
    }
    return false;
  }

  /** A failure message as the event log keeps it: at most 1000 characters. */
  static String cut(String message) {
    return message.length() > 1000 ? message.substring(0, 1000) + "..." : message;
  }

  public boolean isDone() {
    return stages.get(stages.size() - 1).isComplete();
  }

  /** Why the job failed, if it did. */
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  /** Tasks of submitted stages not yet started (tasks waiting for reruns included). */
  public int pendingTasks() {
    int n = 0;
    for (StageProgress stage : stages) {
      if (stage.submitted) {
        n += stage.pending.size();
      }
    }
    return n;
  }

  /** Pending tasks that can start now: their stage's parent outputs all exist. */
  public int runnablePendingTasks() {
    int n = 0;
    for (StageProgress stage : stages) {
      if (isRunnable(stage)) {
        n += stage.pending.size();
      }
    }
    return n;
  }

  /** Map outputs found damaged on their node's disk so far, each counted once per loss. */
  public int damagedMapOutputs() {
    return damagedMapOutputs;
  }

  @Override
  public int runningTasks() {
    return tasks.runningTasks();
  }

  /** For each host, how many pending map tasks prefer it. */
  public Map<String, Integer> hostToLocalTaskCount() {
    Map<String, Integer> counts = new TreeMap<>();
    for (StageProgress stage : pendingInputStages()) {
      for (Integer index : stage.pending) {
        for (String host : stage.stage.splits().get(index).preferredHosts()) {
          counts.merge(host, 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  public int localityAwareTasks() {
    int n = 0;
    for (StageProgress stage : pendingInputStages()) {
      for (Integer index : stage.pending) {
        if (!stage.stage.splits().get(index).preferredHosts().isEmpty()) {
          n++;
        }
      }
    }
    return n;
  }

  private List<StageProgress> pendingInputStages() {
    List<StageProgress> input = new ArrayList<>();
    for (StageProgress stage : stages) {
      if (stage.submitted && stage.stage.isInput() && !stage.pending.isEmpty()) {
        input.add(stage);
      }
    }
    return input;
  }

  @Override
  public List<IdleExecutor> idleExecutors() {
    return tasks.idleExecutors();
  }

  /** Executors that can take tasks (registered and not pending removal). */
  @Override
  public int activeExecutors() {
    return tasks.activeExecutors();
  }

  /** 1-based: the first stage not complete now (the last stage once the job is done). */
  public int stageIndex() {
    for (StageProgress stage : stages) {
      if (!stage.isComplete()) {
        return stage.stage.id() + 1;
      }
    }
    return stages.size();
  }

  public int stageCount() {
    return stages.size();
  }

  public int tasksDone() {
    int n = 0;
    for (StageProgress stage : stages) {
      n += stage.doneTasks();
    }
    return n;
  }

  /** Run time of every task attempt that reported its end, summed, since this scheduler began. */
  public long taskMillis() {
    return tasks.taskMillis();
  }

  /**
   * The running plan's stages not complete yet, as the allocation policy's lookahead reads them
   * ({@code dev.tide.driver.alloc.DemandForecast}): width, parents, pending tasks, how long each
   * running task has run and the run times of the finished ones.
   */
  public List<StageOutlook> stageOutlook() {
    if (plan == null) {
      return List.of();
    }
    long now = clock.getAsLong();
    Map<Integer, List<Long>> elapsed = tasks.runningElapsedByStage(now);
    List<StageOutlook> outlook = new ArrayList<>();
    for (StageProgress stage : stages) {
      if (stage.isComplete()) {
        continue;
      }
      List<Long> times = elapsed.getOrDefault(globalId(stage.stage.id()), List.of());
      long[] runningElapsed = new long[times.size()];
      for (int i = 0; i < runningElapsed.length; i++) {
        runningElapsed[i] = times.get(i);
      }
      outlook.add(new StageOutlook(stage.stage.id(), stage.stage.parents(), stage.stage.tasks(),
          stage.submitted, false, stage.submitted ? stage.pending.size() : 0, runningElapsed,
          stage.finishedMillisAscending(), ago(now, stage.firstFinishAtMillis),
          ago(now, stage.lastFinishAtMillis)));
    }
    return outlook;
  }

  /** Tasks queued by stage submissions since this scheduler began, over all its plans. */
  public long tasksSubmitted() {
    return tasksSubmitted;
  }

  private static long ago(long now, long atMillis) {
    return atMillis < 0 ? -1 : now - atMillis;
  }

  public int tasksTotal() {
    return plan.totalTasks();
  }

  /** The running plan's stages as task assignment reads them. */
  private final class PlanStages implements TaskAssignment.Stages {
    @Override
    public List<StageProgress> all() {
      return stages;
    }

    @Override
    public int globalId(int localStageId) {
      return JobScheduler.this.globalId(localStageId);
    }

    @Override
    public boolean isRunnable(StageProgress stage) {
      return JobScheduler.this.isRunnable(stage);
    }

    @Override
    public TaskDescription newTask(StageProgress stage, int index) {
      return JobScheduler.this.newTask(stage, index);
    }

    @Override
    public StageProgress stageOf(TaskDescription task) {
      return JobScheduler.this.stageOf(task);
    }

    @Override
    public long outputSequence() {
      return outputSequence;
    }
  }
}
