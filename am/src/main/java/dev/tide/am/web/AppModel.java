package dev.tide.am.web;

import dev.tide.app.AppOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.driver.events.JobEndState;
import dev.tide.driver.job.JobArgs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the web UI and the history report show of one application, built from its events (the
 * same ones the event log holds): the live AM feeds it every event as it is recorded, and
 * {@code bin/tide history} replays an event log into it. Thread-safe: {@link #apply} and the
 * readers synchronize on the model; readers get copies.
 */
public final class AppModel {
  /** One executor's row. {@code state}: launched, running, pending-to-remove, ended, failed. */
  public static final class Executor {
    public final String id;
    public String host = "";
    public String container = "";
    public String node = "";
    /** The NodeManager's web address (host:port), for the container log link. */
    public String nodeHttp = "";
    public String state = "launched";
    public long launchedMillis = -1;
    public long registeredMillis = -1;
    public long endMillis = -1;
    public int tasksDone;
    public int tasksFailed;
    public int tasksRunning;
    public long shuffleWrittenBytes;
    public String exitStatus = "";
    public String diagnosis = "";
    /** Why the driver removed it (the decision's reason), or why it was lost; "" while live. */
    public String removalReason = "";

    Executor(String id) {
      this.id = id;
    }

    Executor copy() {
      Executor c = new Executor(id);
      c.host = host;
      c.container = container;
      c.node = node;
      c.nodeHttp = nodeHttp;
      c.state = state;
      c.launchedMillis = launchedMillis;
      c.registeredMillis = registeredMillis;
      c.endMillis = endMillis;
      c.tasksDone = tasksDone;
      c.tasksFailed = tasksFailed;
      c.tasksRunning = tasksRunning;
      c.shuffleWrittenBytes = shuffleWrittenBytes;
      c.exitStatus = exitStatus;
      c.diagnosis = diagnosis;
      c.removalReason = removalReason;
      return c;
    }
  }

  /** One stage's row. {@code state}: running, completed, or how the job ended while it ran. */
  public static final class Stage {
    public final String id;
    public String state = "running";
    public String name = "";
    public String plan = "";
    public int tasks;
    public int done;
    public int failed;
    public int running;
    public long submittedMillis = -1;
    public long completedMillis = -1;
    public long taskMillisTotal;
    public long taskMillisMax;
    public long shuffleWrittenBytes;
    public long shuffleReadBytes;
    /** Over every attempt, failed ones too: the disk work they did. */
    public long spills;
    public long spilledBytes;
    public long fetchedToDiskBytes;
    /** The largest live heap a task's executor reported after it (bytes; 0: none). */
    public long peakHeapBytes;

    Stage(String id) {
      this.id = id;
    }

    Stage copy() {
      Stage c = new Stage(id);
      c.state = state;
      c.name = name;
      c.plan = plan;
      c.tasks = tasks;
      c.done = done;
      c.failed = failed;
      c.running = running;
      c.submittedMillis = submittedMillis;
      c.completedMillis = completedMillis;
      c.taskMillisTotal = taskMillisTotal;
      c.taskMillisMax = taskMillisMax;
      c.shuffleWrittenBytes = shuffleWrittenBytes;
      c.shuffleReadBytes = shuffleReadBytes;
      c.spills = spills;
      c.spilledBytes = spilledBytes;
      c.fetchedToDiskBytes = fetchedToDiskBytes;
      c.peakHeapBytes = peakHeapBytes;
      return c;
    }
  }

  /** One point of the allocation chart. */
  public record Sample(long timeMillis, int target, int running, int starting,
      int pendingRemoval, int pendingTasks, int runningTasks) {}

  /** A change of the target or a removal, with its reason. */
  public record Decision(long timeMillis, String what, String reason) {}

  /** A completed streaming batch. */
  public record Batch(long batchTime, long completedMillis, long records, long processingMillis,
      long schedulingDelayMillis, boolean delayed, int executors, int target) {}

  private String appId = "";
  private String job = "";
  private String user = "";
  private long startMillis = -1;
  private long endMillis = -1;
  private long lastEventMillis = -1;
  private String result = "running";
  private String diagnostics = "";
  private String currentPlan = "";
  private int target;
  private final Map<String, String> settings = new LinkedHashMap<>();
  private final Map<String, Executor> executors = new LinkedHashMap<>();
  private final Map<String, Stage> stages = new LinkedHashMap<>();
  private final Map<String, long[]> runningTasks = new LinkedHashMap<>(); // task -> start, stage
  private final Map<String, String> taskExecutor = new LinkedHashMap<>();
  private final List<Sample> samples = new ArrayList<>();
  private final List<Decision> decisions = new ArrayList<>();
  private final List<Batch> batches = new ArrayList<>();
  private long intervalMillis;
  private long containersAllocated;
  private long containersReleased;
  private long executorFailures;
  private long delayedBatches;
  private long spills;
  private long spilledBytes;
  private long fetchedToDiskBytes;

  /** Applies one event, in the order they happened. */
  public synchronized void apply(EventLine e) {
    long t = e.timeMillis();
    if (startMillis < 0) {
      startMillis = t;
    }
    lastEventMillis = Math.max(lastEventMillis, t);
    Optional<EventName> eventName = e.eventName();
    if (eventName.isEmpty()) {
      return; // an event this version does not know: readers ignore it
    }
    switch (eventName.get()) {
      case JOB_START -> {
        appId = e.get("app");
        job = e.get("job");
        user = e.get("user") == null ? "" : e.get("user");
      }
      case JOB_END -> {
        endMillis = t;
        JobEndState state = JobEndState.of(e);
        result = state.text();
        diagnostics = e.get("diagnostics") == null ? "" : e.get("diagnostics");
        closeOpen(t, state);
      }
      case PLAN_START -> currentPlan = e.get("plan");
      case SETTINGS -> settings.putAll(e.fields());
      case STAGE_SUBMITTED -> {
        Stage s = stages.computeIfAbsent(e.get("stage"), Stage::new);
        s.name = e.get("name");
        s.plan = currentPlan;
        s.tasks = (int) e.getLong("tasks");
        s.submittedMillis = t;
      }
      case STAGE_COMPLETED -> {
        Stage s = stages.computeIfAbsent(e.get("stage"), Stage::new);
        s.completedMillis = t;
        s.state = "completed";
      }
      case TASK_START -> {
        runningTasks.put(e.get("task"), new long[] {t});
        taskExecutor.put(e.get("task"), e.get("executor"));
        stages.computeIfAbsent(e.get("stage"), Stage::new).running++;
        executor(e.get("executor")).tasksRunning++;
      }
      case TASK_END -> taskEnded(e, t);
      case EXECUTOR_LAUNCHED -> {
        Executor x = executor(e.get("executor"));
        x.container = e.get("container");
        x.host = e.get("host");
        x.node = e.get("node") == null ? "" : e.get("node");
        x.nodeHttp = e.get("nodeHttp") == null ? "" : e.get("nodeHttp");
        x.launchedMillis = t;
      }
      case EXECUTOR_REGISTERED -> {
        Executor x = executor(e.get("executor"));
        x.registeredMillis = t;
        if (x.host.isEmpty()) {
          x.host = e.get("host");
        }
      }
      case EXECUTOR_ADDED -> executor(e.get("executor")).state = "running";
      case CONTAINER_ALLOCATED -> containersAllocated++;
      case CONTAINER_RELEASED -> containersReleased++;
      case EXECUTOR_IDLE_REMOVAL -> {
        Executor x = executor(e.get("executor"));
        x.state = "pending-to-remove";
        x.removalReason = e.get("reason") == null ? "idle" : e.get("reason");
        decisions.add(new Decision(t, "remove executor " + e.get("executor"), x.removalReason));
      }
      case EXECUTOR_PREEMPTED -> {
        Executor x = executor(e.get("executor"));
        if (!x.state.equals("failed")) {
          x.state = "preempted";
        }
        x.removalReason = "preempted (" + e.get("how") + "): " + e.get("reason");
        decisions.add(new Decision(t, "executor " + e.get("executor") + " preempted",
            e.get("how") + ": " + e.get("reason")));
      }
      case EXECUTOR_REMOVED -> {
        Executor x = executor(e.get("executor"));
        if (!x.state.equals("failed") && !x.state.equals("preempted")) {
          x.state = "ended";
        }
        x.endMillis = t;
        if (x.removalReason.isEmpty()) {
          x.removalReason = e.get("reason");
        }
      }
      case CONTAINER_COMPLETED -> {
        Executor x = executor(e.get("executor"));
        x.exitStatus = e.get("exitStatus");
        // The container's own end; why the driver removed the executor (idle, lost without
        // heartbeats) is its removalReason.
        x.diagnosis = e.get("diagnostics");
        if ("true".equals(e.get("failure"))) {
          x.state = "failed";
          executorFailures++;
        } else if (!x.state.equals("failed") && !x.state.equals("preempted")) {
          x.state = "ended";
        }
        if (x.endMillis < 0) {
          x.endMillis = t;
        }
      }
      case TASK_SPECULATED -> decisions.add(new Decision(t, "speculate task " + e.get("index")
          + " of stage " + e.get("stage") + " on executor " + e.get("executor"), "its attempt"
          + " ran " + e.get("runningMs") + " ms, over " + e.get("thresholdMs") + " ms"
          + " (tide.speculation.multiplier x its stage's median)"));
      case TARGET_CHANGED, STREAMING_ALLOCATION -> {
        decisions.add(new Decision(t, "target " + e.get("from") + " -> " + e.get("target")
            + (e.is(EventName.STREAMING_ALLOCATION) && e.getLong("remove") > 0
                ? ", remove " + e.get("remove") : ""), e.get("reason")));
        target = (int) e.getLong("target");
      }
      case TIMELINE -> {
        target = (int) e.getLong("target");
        samples.add(new Sample(t, target, (int) e.getLong("executors"), starting(),
            pendingRemoval(), (int) e.getLong("pendingTasks"), (int) e.getLong("runningTasks")));
      }
      case BATCH_COMPLETED -> {
        if (!batches.isEmpty() && intervalMillis == 0) {
          intervalMillis = e.getLong("batch") - batches.get(batches.size() - 1).batchTime();
        }
        if ("true".equals(e.get("delayed"))) {
          delayedBatches++;
        }
        batches.add(new Batch(e.getLong("batch"), t, e.getLong("records"),
            e.getLong("processingMs"), e.getLong("schedulingDelayMs"),
            "true".equals(e.get("delayed")), (int) e.getLong("executors"),
            (int) e.getLong("target")));
      }
      default -> { }
    }
  }

  /**
   * The job's end ends what was still open: an executor still starting, running or being
   * removed is ended with it (YARN stops its container), and a stage not completed stops with
   * the job's state ({@code ended} when the job succeeded without it).
   */
  private void closeOpen(long t, JobEndState state) {
    for (Executor x : executors.values()) {
      if (!x.state.equals("ended") && !x.state.equals("failed")) {
        x.state = "ended";
        x.tasksRunning = 0;
        if (x.endMillis < 0) {
          x.endMillis = t;
        }
        if (x.removalReason.isEmpty()) {
          x.removalReason = "the application ended (" + state.text() + ")";
        }
      }
    }
    for (Stage s : stages.values()) {
      if (s.state.equals("running")) {
        s.state = state == JobEndState.SUCCEEDED ? "ended" : state.text();
        s.running = 0;
      }
    }
    runningTasks.clear();
  }

  /**
   * Called after the last event of a replayed log: a log without {@code jobEnd} (the
   * application still runs, or its ApplicationMaster died) is {@code incomplete} and ends at
   * its last event, not now.
   */
  public synchronized void endOfLog() {
    if (endMillis < 0) {
      result = "incomplete";
      endMillis = lastEventMillis;
    }
  }

  private void taskEnded(EventLine e, long t) {
    long[] started = runningTasks.remove(e.get("task"));
    Stage s = stages.computeIfAbsent(e.get("stage"), Stage::new);
    Executor x = executor(e.get("executor"));
    if (started != null) {
      s.running = Math.max(0, s.running - 1);
      x.tasksRunning = Math.max(0, x.tasksRunning - 1);
      long millis = t - started[0];
      s.taskMillisTotal += millis;
      s.taskMillisMax = Math.max(s.taskMillisMax, millis);
    }
    long written = number(e, "outputBytes");
    long read = number(e, "bytesFetched");
    s.spills += number(e, "spills");
    s.spilledBytes += number(e, "spilledBytes");
    s.fetchedToDiskBytes += number(e, "fetchedToDiskBytes");
    s.peakHeapBytes = Math.max(s.peakHeapBytes, number(e, "peakHeapBytes"));
    spills += number(e, "spills");
    spilledBytes += number(e, "spilledBytes");
    fetchedToDiskBytes += number(e, "fetchedToDiskBytes");
    if ("SUCCEEDED".equals(e.get("result"))) {
      s.done++;
      x.tasksDone++;
      s.shuffleWrittenBytes += written;
      s.shuffleReadBytes += read;
      x.shuffleWrittenBytes += written;
    } else {
      s.failed++;
      x.tasksFailed++;
    }
  }

  private static long number(EventLine e, String key) {
    String v = e.get(key);
    try {
      return v == null ? 0 : Long.parseLong(v);
    } catch (NumberFormatException ex) {
      return 0;
    }
  }

  private Executor executor(String id) {
    return executors.computeIfAbsent(id == null ? "?" : id, Executor::new);
  }

  private int starting() {
    int n = 0;
    for (Executor x : executors.values()) {
      if (x.state.equals("launched")) {
        n++;
      }
    }
    return n;
  }

  private int pendingRemoval() {
    int n = 0;
    for (Executor x : executors.values()) {
      if (x.state.equals("pending-to-remove")) {
        n++;
      }
    }
    return n;
  }

  public synchronized String appId() {
    return appId;
  }

  /** Who ran the application (for the container log links). */
  public synchronized String user() {
    return user;
  }

  public synchronized String job() {
    return job;
  }

  public synchronized long startMillis() {
    return startMillis;
  }

  /** -1 while running. */
  public synchronized long endMillis() {
    return endMillis;
  }

  /** running, succeeded, failed, killed, or incomplete (a log without its end). */
  public synchronized String result() {
    return result;
  }

  public synchronized String diagnostics() {
    return diagnostics;
  }

  /**
   * The job's arguments, decoded from the setting {@code tide.job.args} ({@link JobArgs});
   * empty when it was not recorded.
   */
  public synchronized List<String> jobArgs() {
    String encoded = settings.get(AppOptions.JOB_ARGS.key());
    try {
      return JobArgs.decode(encoded);
    } catch (IllegalArgumentException e) {
      return List.of(encoded); // not percent-encoding: shown as it was recorded
    }
  }

  /** The settings that size the job, as the driver recorded them. */
  public synchronized Map<String, String> settings() {
    return new LinkedHashMap<>(settings);
  }

  public synchronized int target() {
    return target;
  }

  public synchronized long batchIntervalMillis() {
    return intervalMillis;
  }

  /** Counts for the AM's metrics: executors by state, containers, failures, batches. */
  /** Executors now, and counts since the start (spills: of every task attempt). */
  public record Counts(int running, int starting, int pendingRemoval, long containersAllocated,
      long containersReleased, long executorFailures, long delayedBatches, long batches,
      long spills, long spilledBytes, long fetchedToDiskBytes) {}

  public synchronized Counts counts() {
    int running = 0;
    for (Executor x : executors.values()) {
      if (x.state.equals("running")) {
        running++;
      }
    }
    return new Counts(running, starting(), pendingRemoval(), containersAllocated,
        containersReleased, executorFailures, delayedBatches, batches.size(), spills,
        spilledBytes, fetchedToDiskBytes);
  }

  public synchronized List<Executor> executors() {
    return executors.values().stream().filter(x -> !x.id.equals("?")).map(Executor::copy)
        .toList();
  }

  public synchronized List<Stage> stages() {
    return stages.values().stream().map(Stage::copy).toList();
  }

  public synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  public synchronized List<Decision> decisions() {
    return List.copyOf(decisions);
  }

  public synchronized List<Batch> batches() {
    return List.copyOf(batches);
  }
}
