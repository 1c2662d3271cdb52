package dev.tide.driver.scheduler;

import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.TaskDescription.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task scheduler of one job: a map stage (one task per split) feeding a shuffle, then a
 * reduce stage (one task per partition) that starts once every map output is committed. It tracks
 * executors and their free slots, where each map output is served, attempts per task, and reruns
 * map outputs a reducer could not fetch.
 *
 * <p>Not thread-safe: the driver's event loop owns it. Time comes from the injected clock.
 */
public final class JobScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(JobScheduler.class);
  static final int SHUFFLE_ID = 0;
  static final int MAP_STAGE = 0;
  static final int REDUCE_STAGE = 1;

  private final JobPlan plan;
  private final int slotsPerExecutor;
  private final int maxAttempts;
  private final int maxFetchFailures;
  private final int maxFetchFailureRounds;
  private final LongSupplier clock;
  private final EventLog events;

  private final Map<String, ExecutorSlots> executors = new LinkedHashMap<>();
  private final Deque<Integer> pendingMaps = new ArrayDeque<>();
  private final Deque<Integer> pendingReduces = new ArrayDeque<>();
  private final Map<Long, Running> running = new HashMap<>();
  private final Map<Integer, MapLocation> mapOutputs = new TreeMap<>();
  private final Map<Integer, Boolean> reduceDone = new HashMap<>();
  private final int[] mapFailures;
  private final int[] reduceFailures;
  private final int[] mapAttempts;
  private final int[] reduceAttempts;
  private int fetchFailures;
  /** Rounds of map reruns after fetch failures since a reduce last succeeded. */
  private int fetchFailureRounds;
  /** Whether maps lost in the current round are still being recomputed. */
  private boolean rerunRoundOpen;
  private long nextTaskId = 1;
  private boolean reduceStageSubmitted;
  private String failure;

  /** An executor as the scheduler sees it. */
  private static final class ExecutorSlots {
    final String id;
    final String host;
    final int shufflePort;
    int busy;
    boolean pendingRemoval;
    /** It reported running out of heap and exits to be replaced: no new tasks. */
    boolean exiting;
    long idleSinceMillis;

    ExecutorSlots(String id, String host, int shufflePort, long now) {
      this.id = id;
      this.host = host;
      this.shufflePort = shufflePort;
      this.idleSinceMillis = now;
    }
  }

  private record Running(TaskDescription task, String executorId) {}

  /** A task handed to an executor. */
  public record Assignment(String executorId, TaskDescription task) {}

  /**
   * An executor with no running task, and since when.
   *
   * @param hasCachedBlocks whether it holds cached blocks (kept longer by the allocation
   *     policy); this scheduler caches nothing yet, so it reports false
   */
  public record IdleExecutor(String executorId, long idleSinceMillis, boolean hasCachedBlocks) {
    public IdleExecutor(String executorId, long idleSinceMillis) {
      this(executorId, idleSinceMillis, false);
    }
  }

  public JobScheduler(JobPlan plan, int slotsPerExecutor, int maxAttempts, LongSupplier clock,
      EventLog events) {
    this(plan, slotsPerExecutor, maxAttempts, DEFAULT_FETCH_FAILURE_ROUNDS, clock, events);
  }

  /** As Spark's {@code spark.stage.maxConsecutiveAttempts}. */
  public static final int DEFAULT_FETCH_FAILURE_ROUNDS = 4;

  /**
   * @param maxFetchFailureRounds rounds of map reruns after fetch failures, with no reduce task
   *     succeeding in between, after which the job fails
   *     ({@code tide.stage.maxConsecutiveAttempts})
   */
  public JobScheduler(JobPlan plan, int slotsPerExecutor, int maxAttempts,
      int maxFetchFailureRounds, LongSupplier clock, EventLog events) {
    this.plan = plan;
    this.maxFetchFailureRounds = maxFetchFailureRounds;
    this.slotsPerExecutor = slotsPerExecutor;
    this.maxAttempts = maxAttempts;
    this.maxFetchFailures = Math.max(4, maxAttempts * plan.splits().size());
    this.clock = clock;
    this.events = events;
    int maps = plan.splits().size();
    this.mapFailures = new int[maps];
    this.mapAttempts = new int[maps];
    this.reduceFailures = new int[plan.reducers()];
    this.reduceAttempts = new int[plan.reducers()];
    for (int i = 0; i < maps; i++) {
      pendingMaps.add(i);
    }
    events.record("stageSubmitted", "stage", MAP_STAGE, "tasks", maps);
  }

  public void executorAdded(String executorId, String host, int shufflePort) {
    executors.put(executorId, new ExecutorSlots(executorId, host, shufflePort,
        clock.getAsLong()));
  }

  /** The executor is gone; its running tasks go back to pending (not counted as failures). */
  public void executorLost(String executorId, String reason) {
    if (executors.remove(executorId) == null) {
      return;
    }
    for (Iterator<Running> it = running.values().iterator(); it.hasNext(); ) {
      Running r = it.next();
      if (r.executorId().equals(executorId)) {
        it.remove();
        LOG.info("Task {} lost with executor {} ({}); it will run again",
            r.task().describe(), executorId, reason);
        events.record("taskEnd", "task", r.task().taskId(), "kind", r.task().kind(),
            "index", r.task().index(), "attempt", r.task().attempt(), "executor", executorId,
            "result", "EXECUTOR_LOST");
        requeue(r.task());
      }
    }
    // Map outputs stay where they are: the node's tide_shuffle service serves them.
  }

  /** Marks executors that are about to be killed: they get no new tasks. */
  public void markPendingRemoval(Collection<String> executorIds) {
    for (String id : executorIds) {
      ExecutorSlots e = executors.get(id);
      if (e != null) {
        e.pendingRemoval = true;
      }
    }
  }

  /** True while the executor is known and marked for removal. */
  public boolean isPendingRemoval(String executorId) {
    ExecutorSlots e = executors.get(executorId);
    return e != null && e.pendingRemoval;
  }

  /** Hands pending tasks to free slots, preferring executors on a task's preferred hosts. */
  public List<Assignment> assignTasks() {
    List<Assignment> assignments = new ArrayList<>();
    if (failure != null) {
      return assignments;
    }
    boolean progress = true;
    while (progress) {
      progress = false;
      for (ExecutorSlots e : executors.values()) {
        if (e.pendingRemoval || e.exiting || e.busy >= slotsPerExecutor) {
          continue;
        }
        Optional<TaskDescription> task = nextTaskFor(e.host);
        if (task.isPresent()) {
          e.busy++;
          running.put(task.get().taskId(), new Running(task.get(), e.id));
          assignments.add(new Assignment(e.id, task.get()));
          events.record("taskStart", "task", task.get().taskId(), "kind", task.get().kind(),
              "index", task.get().index(), "attempt", task.get().attempt(), "executor", e.id,
              "host", e.host);
          progress = true;
        }
      }
    }
    return assignments;
  }

  private Optional<TaskDescription> nextTaskFor(String host) {
    if (!pendingMaps.isEmpty()) {
      Integer chosen = null;
      for (Integer mapId : pendingMaps) {
        if (plan.splits().get(mapId).preferredHosts().contains(host)) {
          chosen = mapId;
          break;
        }
      }
      if (chosen == null) {
        chosen = pendingMaps.peekFirst();
      }
      pendingMaps.remove(chosen);
      InputSplit split = plan.splits().get(chosen);
      return Optional.of(new TaskDescription(nextTaskId++, Kind.MAP, MAP_STAGE, chosen,
          mapAttempts[chosen]++, SHUFFLE_ID, plan.reducers(), plan.mapperClass(),
          split.payload(), split.preferredHosts(), List.of(), plan.outputPath()));
    }
    if (reduceStageSubmitted && mapOutputs.size() == plan.splits().size()
        && !pendingReduces.isEmpty()) {
      int partition = pendingReduces.pollFirst();
      return Optional.of(new TaskDescription(nextTaskId++, Kind.REDUCE, REDUCE_STAGE, partition,
          reduceAttempts[partition]++, SHUFFLE_ID, plan.reducers(), plan.reducerClass(),
          new byte[0], List.of(), new ArrayList<>(mapOutputs.values()), plan.outputPath()));
    }
    return Optional.empty();
  }

  /** Applies an executor's report of how a task attempt ended. */
  public void taskEnded(TaskOutcome outcome) {
    Running r = running.remove(outcome.taskId());
    if (r == null) {
      return; // a late report from an attempt already requeued
    }
    TaskDescription task = r.task();
    ExecutorSlots e = executors.get(r.executorId());
    if (e != null) {
      e.busy--;
      if (e.busy == 0) {
        e.idleSinceMillis = clock.getAsLong();
      }
    }
    List<Object> fields = new ArrayList<>(List.of("task", task.taskId(), "kind", task.kind(),
        "index", task.index(), "attempt", task.attempt(), "executor", r.executorId(),
        "result", outcome.state()));
    outcome.metrics().forEach((k, v) -> {
      fields.add(k);
      fields.add(v);
    });
    events.record("taskEnd", fields.toArray());
    if (e != null && outcome.metrics().getOrDefault(TaskOutcome.EXECUTOR_OUT_OF_MEMORY, 0L) > 0) {
      e.exiting = true; // it exits after this report; a new executor replaces it
    }
    switch (outcome.state()) {
      case SUCCEEDED -> succeeded(task, e);
      case FAILED -> failed(task, r.executorId(), outcome.message());
      case FETCH_FAILED -> fetchFailed(task, outcome);
      default -> throw new IllegalStateException("unknown outcome " + outcome.state());
    }
  }

  private void succeeded(TaskDescription task, ExecutorSlots e) {
    if (task.kind() == Kind.MAP) {
      if (e == null) {
        // The executor vanished before its report was read; rerun to learn a location.
        requeue(task);
        return;
      }
      mapOutputs.put(task.index(), new MapLocation(task.index(), e.host, e.shufflePort));
      if (mapOutputs.size() == plan.splits().size()) {
        rerunRoundOpen = false;
      }
      if (mapOutputs.size() == plan.splits().size() && !reduceStageSubmitted) {
        reduceStageSubmitted = true;
        events.record("stageCompleted", "stage", MAP_STAGE);
        events.record("stageSubmitted", "stage", REDUCE_STAGE, "tasks", plan.reducers());
        for (int p = 0; p < plan.reducers(); p++) {
          pendingReduces.add(p);
        }
      }
    } else {
      fetchFailureRounds = 0;
      reduceDone.put(task.index(), true);
      if (isDone()) {
        events.record("stageCompleted", "stage", REDUCE_STAGE);
      }
    }
  }

  private void failed(TaskDescription task, String executorId, String message) {
    int[] failures = task.kind() == Kind.MAP ? mapFailures : reduceFailures;
    failures[task.index()]++;
    LOG.warn("Task {} failed on executor {} ({} of {} attempts): {}", task.describe(),
        executorId, failures[task.index()], maxAttempts, message);
    if (failures[task.index()] >= maxAttempts) {
      failure = "task " + task.kind().name().toLowerCase() + " " + task.index() + " failed "
          + failures[task.index()] + " times; last failure on executor " + executorId + ": "
          + message;
      return;
    }
    requeue(task);
  }

  private void fetchFailed(TaskDescription task, TaskOutcome outcome) {
    fetchFailures++;
    List<Integer> lost = new ArrayList<>(outcome.lostMapIds());
    if (outcome.wholeServiceLost()) {
      for (MapLocation location : mapOutputs.values()) {
        if (location.host().equals(outcome.fetchHost())
            && location.shufflePort() == outcome.fetchPort()) {
          lost.add(location.mapId());
        }
      }
    }
    LOG.warn("Reduce {} could not fetch map outputs {} from {}:{} ({}); rerunning them",
        task.index(), lost, outcome.fetchHost(), outcome.fetchPort(), outcome.message());
    if (fetchFailures > maxFetchFailures) {
      failure = "too many shuffle fetch failures (" + fetchFailures + "); last: "
          + outcome.message();
      return;
    }
    boolean newlyLost = false;
    for (Integer mapId : lost) {
      if (mapOutputs.containsKey(mapId)) {
        newlyLost = true;
      }
    }
    if (newlyLost && !rerunRoundOpen) {
      fetchFailureRounds++;
      rerunRoundOpen = true;
      if (fetchFailureRounds > maxFetchFailureRounds) {
        failure = "the reduce stage could not fetch its input in " + fetchFailureRounds
            + " consecutive rounds of map reruns (tide.stage.maxConsecutiveAttempts = "
            + maxFetchFailureRounds + "); last: reduce " + task.index() + " from "
            + outcome.fetchHost() + ":" + outcome.fetchPort() + ": " + outcome.message();
        return;
      }
    }
    for (Integer mapId : lost) {
      if (mapOutputs.remove(mapId) != null) {
        pendingMaps.add(mapId);
        events.record("mapOutputLost", "map", mapId, "host", outcome.fetchHost());
      }
    }
    pendingReduces.addFirst(task.index());
  }

  private void requeue(TaskDescription task) {
    if (task.kind() == Kind.MAP) {
      if (!mapOutputs.containsKey(task.index()) && !pendingMaps.contains(task.index())) {
        pendingMaps.addFirst(task.index());
      }
    } else if (!reduceDone.containsKey(task.index())) {
      pendingReduces.addFirst(task.index());
    }
  }

  public boolean isDone() {
    return reduceDone.size() == plan.reducers();
  }

  /** Why the job failed, if it did. */
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  /** Tasks of submitted stages not yet started (reduces waiting for reruns included). */
  public int pendingTasks() {
    return pendingMaps.size() + (reduceStageSubmitted ? pendingReduces.size() : 0);
  }

  /** Pending tasks that can start now (map tasks, or reduces once all map outputs exist). */
  public int runnablePendingTasks() {
    int reduces = reduceStageSubmitted && mapOutputs.size() == plan.splits().size()
        ? pendingReduces.size() : 0;
    return pendingMaps.size() + reduces;
  }

  public int runningTasks() {
    return running.size();
  }

  /** For each host, how many pending map tasks prefer it. */
  public Map<String, Integer> hostToLocalTaskCount() {
    Map<String, Integer> counts = new TreeMap<>();
    for (Integer mapId : pendingMaps) {
      for (String host : plan.splits().get(mapId).preferredHosts()) {
        counts.merge(host, 1, Integer::sum);
      }
    }
    return counts;
  }

  public int localityAwareTasks() {
    int n = 0;
    for (Integer mapId : pendingMaps) {
      if (!plan.splits().get(mapId).preferredHosts().isEmpty()) {
        n++;
      }
    }
    return n;
  }

  public List<IdleExecutor> idleExecutors() {
    List<IdleExecutor> idle = new ArrayList<>();
    for (ExecutorSlots e : executors.values()) {
      if (e.busy == 0 && !e.pendingRemoval && !e.exiting) {
        idle.add(new IdleExecutor(e.id, e.idleSinceMillis));
      }
    }
    return idle;
  }

  /** Executors that can take tasks (registered and not pending removal). */
  public int activeExecutors() {
    int n = 0;
    for (ExecutorSlots e : executors.values()) {
      if (!e.pendingRemoval && !e.exiting) {
        n++;
      }
    }
    return n;
  }

  public int stageIndex() {
    if (isDone()) {
      return 2;
    }
    return reduceStageSubmitted ? 2 : 1;
  }

  public int tasksDone() {
    return mapOutputs.size() + reduceDone.size();
  }

  public int tasksTotal() {
    return plan.splits().size() + plan.reducers();
  }
}
