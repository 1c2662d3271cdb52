package dev.tide.driver.conf;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.bytesOption;
import static dev.tide.conf.ConfigOption.doubleOption;
import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.memoryMbOption;
import static dev.tide.conf.ConfigOption.stringOption;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.executor.ExecutorOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Every setting of the driver, with its default. {@link #all()} lists them with those the
 * executors share with the driver ({@link AppOptions}) and the executors' own
 * ({@link ExecutorOptions}), in the order conf/tide-site.xml shows them.
 */
public final class TideOptions {
  private TideOptions() {}

  public static final ConfigOption<String> JOB =
      stringOption("tide.job", "", "Job to run: a built-in name (wordcount, sleep) or the"
          + " fully qualified name of a dev.tide.driver.job.TideJob class.");

  public static final ConfigOption<Integer> EXECUTOR_MEMORY_OVERHEAD_MB =
      memoryMbOption("tide.executor.memoryOverhead", "256m", 0,
          "Container memory beyond the executor heap (a plain number is MiB).");
  public static final ConfigOption<String> EXECUTOR_JAVA_OPTS =
      stringOption("tide.executor.javaOpts", "", "Extra JVM options for executors.");
  public static final ConfigOption<Integer> EXECUTOR_MAX_FAILURES =
      intOption("tide.executor.maxFailures", 0, 0,
          "Executor failures in a row (containers that exited with an error, failed to start,"
          + " exceeded their memory or were lost without heartbeats (tide.executor"
          + ".heartbeatTimeout), with no task succeeding between them) within"
          + " tide.executor.failuresValidityInterval that the job tolerates; one more fails it."
          + " A failure after a task succeeded forgives the ones before it. 0 means twice the executors the job may run, at"
          + " least 3, as Spark's: 2 x tide.dynamicAllocation.maxExecutors (2 x"
          + " tide.streaming.dynamicAllocation.maxExecutors for a job sized by the streaming"
          + " policy; 2 x the fixed count without dynamic allocation), and while maxExecutors"
          + " is unbounded (its default) twice the most executors the job has had at once so"
          + " far.");
  public static final ConfigOption<Duration> EXECUTOR_REGISTRATION_TIMEOUT =
      durationOption("tide.executor.registrationTimeout", "60s",
          "How long an executor keeps retrying to register with the driver before it exits.");
  public static final ConfigOption<Duration> EXECUTOR_HEARTBEAT_TIMEOUT =
      durationOption("tide.executor.heartbeatTimeout", "60s", "An executor the driver has not"
          + " heard from for this long (a stopped or frozen JVM, a hung node, a network"
          + " partition) is declared lost: its container is released and counted as an"
          + " executor failure against its node, and its tasks run again elsewhere (as"
          + " spark.network.timeout and mapreduce.task.timeout). Must be longer than"
          + " tide.executor.heartbeatInterval; long enough to outlast the longest full GC pause.")
          .withCheck(d -> !d.isZero(), "must be positive");
  public static final ConfigOption<Integer> TASK_MAX_ATTEMPTS =
      intOption("tide.task.maxAttempts", 4, 1, "Attempts of one task before the job fails.");
  public static final ConfigOption<Integer> STAGE_MAX_CONSECUTIVE_ATTEMPTS =
      intOption("tide.stage.maxConsecutiveAttempts", 4, 1, "Rounds of map reruns after shuffle"
          + " fetch failures, with no reduce task succeeding in between, before the job fails"
          + " (as spark.stage.maxConsecutiveAttempts).");
  public static final ConfigOption<Boolean> SPECULATION =
      booleanOption("tide.speculation", false, "Run a second, speculative attempt of a task that"
          + " runs much longer than its stage's others (a straggler: a slow node or disk), on"
          + " another executor (another host when one has a free slot); the first attempt to"
          + " succeed wins and the other's result is ignored (as spark.speculation).");
  public static final ConfigOption<Double> SPECULATION_QUANTILE =
      doubleOption("tide.speculation.quantile", 0.75, "Fraction of a stage's tasks"
          + " that must have succeeded before any of its tasks is speculated (0 to 1).")
          .withCheck(q -> q >= 0 && q <= 1, "must be between 0 and 1");
  public static final ConfigOption<Double> SPECULATION_MULTIPLIER =
      doubleOption("tide.speculation.multiplier", 1.5, "A task is a straggler once"
          + " it has run this many times the median run time of its stage's succeeded tasks.")
          .withCheck(m -> m >= 1, "must be at least 1");
  public static final ConfigOption<Duration> SPECULATION_MIN_TASK_RUNTIME =
      durationOption("tide.speculation.minTaskRuntime", "500ms", TimeUnit.MILLISECONDS,
          "A task is never speculated before it has run this long (short tasks cost less to"
          + " wait for than to run twice).");
  public static final ConfigOption<Integer> DRIVER_PORT =
      intOption("tide.driver.port", 0, 0, "Driver RPC port; 0 picks a free one.");
  public static final ConfigOption<Boolean> EVENT_LOG_ENABLED =
      booleanOption("tide.eventLog.enabled", true, "Write an event log per application (JSON"
          + " lines, docs/event-log.md): what bin/tide timeline and history read.");
  public static final ConfigOption<String> EVENT_LOG_DIR =
      stringOption("tide.eventLog.dir", "/tmp/tide-events", "Directory of the event logs (a"
          + " Hadoop FileSystem URI; a path without a scheme is in the default FileSystem),"
          + " one <applicationId>.events file each. Created world-writable and sticky, as /tmp,"
          + " when missing; empty turns the event log off.");

  public static final ConfigOption<Boolean> DA_ENABLED =
      booleanOption("tide.dynamicAllocation.enabled", true,
          "Scale executors with the load; when false, run initialExecutors throughout.");
  public static final ConfigOption<Integer> DA_MIN_EXECUTORS =
      intOption("tide.dynamicAllocation.minExecutors", 0, 0, "Lower bound on executors.");
  public static final ConfigOption<Integer> DA_MAX_EXECUTORS =
      intOption("tide.dynamicAllocation.maxExecutors", Integer.MAX_VALUE, 1,
          "Upper bound on executors (the queue bounds it in practice).");
  public static final ConfigOption<Integer> DA_INITIAL_EXECUTORS =
      intOption("tide.dynamicAllocation.initialExecutors", -1, -1,
          "Executors asked for at start; -1 means minExecutors.");
  public static final ConfigOption<Duration> DA_EXECUTOR_IDLE_TIMEOUT =
      durationOption("tide.dynamicAllocation.executorIdleTimeout", "60s",
          "An executor with no running task for this long is removed.");
  /** A decimal fraction in (0, 1]; parsed by AllocationSettings. */
  public static final ConfigOption<String> DA_EXECUTOR_ALLOCATION_RATIO =
      stringOption("tide.dynamicAllocation.executorAllocationRatio", "1.0",
          "Fraction (above 0, at most 1) of the executors the pending and running tasks need"
          + " that the policy asks for at most; below 1 trades job time for fewer executors.");
  public static final ConfigOption<Duration> DA_SCHEDULER_BACKLOG_TIMEOUT =
      durationOption("tide.dynamicAllocation.schedulerBacklogTimeout", "1s",
          "Tasks pending for this long (above 0) make the policy ask for more executors.");
  /** A duration, or empty for schedulerBacklogTimeout; parsed by AllocationSettings. */
  public static final ConfigOption<String> DA_SUSTAINED_SCHEDULER_BACKLOG_TIMEOUT =
      stringOption("tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "",
          "While the backlog lasts, the policy asks again this often (above 0); empty means"
          + " schedulerBacklogTimeout.");
  /** A duration, or empty for 2 x executorIdleTimeout; parsed by AllocationSettings. */
  public static final ConfigOption<String> DA_CACHED_EXECUTOR_IDLE_TIMEOUT =
      stringOption("tide.dynamicAllocation.cachedExecutorIdleTimeout", "",
          "An idle executor that holds cached blocks is removed after this long; empty means"
          + " twice executorIdleTimeout.");
  /** exponential or headroom; parsed by AllocationSettings. */
  public static final ConfigOption<String> DA_RAMP_UP =
      stringOption("tide.dynamicAllocation.rampUp", "backlog",
          "How the target grows under a backlog: backlog (ask at once for what the queue can"
          + " grant, up to what the tasks need, unless the executors there run the pending"
          + " tasks, at their measured run time and with new arrivals, within one measured start"
          + " latency: then nothing until the backlog outlives that), exponential"
          + " (add 1, 2, 4, 8 ... executors per backlog period, as Spark does) or headroom (ask"
          + " at once for what the queue can grant now, up to what the tasks need).");
  public static final ConfigOption<Boolean> DA_ADAPTIVE_IDLE_TIMEOUT =
      booleanOption("tide.dynamicAllocation.adaptiveIdleTimeout", true,
          "The idle timeout follows what bringing an executor back costs: it is chosen from the"
          + " measured start latency (allocation to registration) and the idle gaps seen, i.e."
          + " how soon released executors were needed again; executorIdleTimeout is its"
          + " ceiling. False: executorIdleTimeout throughout.");
  public static final ConfigOption<Boolean> DA_EARLY_RELEASE =
      booleanOption("tide.dynamicAllocation.earlyRelease", true,
          "When no task is pending and the plan has more stages, idle executors beyond what the"
          + " running tasks and the stages due within two start latencies need are released at"
          + " once, not after the idle timeout.");
  public static final ConfigOption<Boolean> DA_LOOKAHEAD =
      booleanOption("tide.dynamicAllocation.lookahead", true,
          "Read the plan's DAG: ask for a stage's executors one start latency before it becomes"
          + " runnable (its parents' end estimated from their finished tasks' run times), and"
          + " keep idle executors only for stages due within two start latencies (or not known"
          + " yet): they go gradually over four start latencies (two on average), after all are"
          + " kept as long as the application's earlier waits for such guessed stages say"
          + " pays.");
  public static final ConfigOption<Boolean> DA_IMMEDIATE_FIRST_REQUEST =
      booleanOption("tide.dynamicAllocation.immediateFirstRequest", true,
          "Ask at once, without waiting schedulerBacklogTimeout, when the backlog will clearly"
          + " outlast an executor's start: no executor is there or coming, or the pending tasks"
          + " take longer than the measured start latency on the executors there.");
  public static final ConfigOption<Boolean> DA_ARRIVAL_HOLD =
      booleanOption("tide.dynamicAllocation.arrivalHold", true,
          "While new work (stages the plan did not foresee, such as new jobs) keeps arriving,"
          + " keep idle executors that the arrivals seen so far suggest the next one will use:"
          + " for each count of executors, how long to keep it (counted from the last arrival,"
          + " from the end of the work after it, or from when the work fell below that count"
          + " within two start latencies) is chosen as in rent or buy from how long that count"
          + " waited for each arrival and the executors each one needed, a release that the"
          + " next arrival needs costing arrivalHoldWeight start latencies;"
          + " executorIdleTimeout is the longest.");
  public static final ConfigOption<Integer> DA_ARRIVAL_HOLD_WEIGHT =
      intOption("tide.dynamicAllocation.arrivalHoldWeight", 9, 1,
          "What arrivalHold counts for an executor released before an arrival that needs it,"
          + " in measured start latencies: its start-up plus the arrival's work waiting for it."
          + " 2 weighs the waiting work like executor time; higher values keep more executors"
          + " between arrivals for shorter job latency.");
  public static final ConfigOption<Double> DA_IDLE_ALLOWANCE =
      doubleOption("tide.dynamicAllocation.idleAllowance", 1.0,
          "With lookahead: idle executors kept for a stage forecast to come are let go by the"
          + " rent-or-buy cap (over four start latencies) only once the application's idle"
          + " executor time of the last minutes (decaying over ten) exceeds this many times its"
          + " busy executor time; below that, they wait for the stage, which would otherwise"
          + " start cold. Within half of it, they are kept for a stage forecast (from most of its"
          + " parents' tasks) within four start latencies as well, when waiting all that time"
          + " fits. 0 leaves it to the cap alone.")
          .withCheck(v -> v >= 0, "must be at least 0");
  public static final ConfigOption<Boolean> DA_ARRIVAL_TREND =
      booleanOption("tide.dynamicAllocation.arrivalTrend", true,
          "While new work (stages the plan did not foresee, such as new jobs) arrives at a"
          + " rising rate (more tasks in the last start latency than in the one before, each"
          + " with at least two arrivals), ask now for the executors the tasks will need two"
          + " start latencies ahead if the rate keeps rising as it did, instead of one start"
          + " latency after they wait.");
  public static final ConfigOption<Boolean> DA_ARRIVAL_AT_ONCE =
      booleanOption("tide.dynamicAllocation.arrivalAtOnce", true,
          "When new work arrives (stages the plan did not foresee, such as a new job), ask at"
          + " once for the executors the pending and running tasks need, without"
          + " schedulerBacklogTimeout and without the backlog ramp's wait for evidence that the"
          + " tasks outlast a start (none of the new tasks has run yet); when the stage behind"
          + " them is wider, ask for it too (it would otherwise be asked for a start late).");

  // Streaming jobs (dev.tide.driver.streaming) and their allocation policy.
  public static final ConfigOption<Duration> STREAMING_BATCH_INTERVAL =
      durationOption("tide.streaming.batchInterval", "2s",
          "A streaming job runs one batch over the records of each interval of this length.")
          .withCheck(d -> !d.isZero(), "must be above 0");
  public static final ConfigOption<Duration> STREAMING_STOP_AFTER =
      durationOption("tide.streaming.stopAfter", "0",
          "A streaming job stops after this long (after the running batch ends); 0 runs until"
          + " it is stopped or killed.");
  public static final ConfigOption<String> STREAMING_CHECKPOINT_DIR =
      stringOption("tide.streaming.checkpointDir", "",
          "Where a streaming job records which input each batch took (any Hadoop FileSystem"
          + " URI), so that a resubmitted job continues where the last one stopped; empty means"
          + " <output>/_checkpoint.");
  public static final ConfigOption<String> STREAMING_RATE_SCHEDULE =
      stringOption("tide.streaming.rate.schedule", "1000@0s",
          "Records per second of the rate source: steps rate@time (1000@0s,4000@120s), a ramp"
          + " ramp(from,to,duration), or sine(mean,amplitude,period).");
  public static final ConfigOption<Duration> STREAMING_RATE_COST =
      durationOption("tide.streaming.rate.cost", "1ms", TimeUnit.MICROSECONDS,
          "CPU time the rate source's mapper spends on each record.");
  public static final ConfigOption<Boolean> STREAMING_RATE_SPIN =
      booleanOption("tide.streaming.rate.spin", true,
          "true: the rate source's mapper spends each record's cost on the CPU; false: it"
          + " sleeps it (the same processing time, for machines with fewer cores than"
          + " executors).");
  public static final ConfigOption<Integer> STREAMING_RATE_SPLITS =
      intOption("tide.streaming.rate.splits", 16, 1,
          "Map tasks per batch of the rate source (records are split evenly among them).");

  public static final ConfigOption<Boolean> SDA_ENABLED =
      booleanOption("tide.streaming.dynamicAllocation.enabled", false,
          "Size a streaming job's executors by its batches' processing time (instead of the"
          + " batch policy, which is then off for the job; enabling both is refused).");
  public static final ConfigOption<String> SDA_POLICY =
      stringOption("tide.streaming.dynamicAllocation.policy", "proportional",
          "seed (the source design's rule, except that it keeps at least one executor) or"
          + " proportional (sizes from measured cost per record).");
  public static final ConfigOption<Integer> SDA_MIN_EXECUTORS =
      intOption("tide.streaming.dynamicAllocation.minExecutors", 0, 0,
          "Lower bound on a streaming job's executors. Both policies keep at least one"
          + " executor whatever this says (0 acts as 1), so a stream always has one to run"
          + " its next batch.");
  public static final ConfigOption<Integer> SDA_MAX_EXECUTORS =
      intOption("tide.streaming.dynamicAllocation.maxExecutors", 50, 1,
          "Upper bound on a streaming job's executors; seed asks for all of them when a batch"
          + " is delayed.");
  public static final ConfigOption<Integer> SDA_INITIAL_EXECUTORS =
      intOption("tide.streaming.dynamicAllocation.initialExecutors", -1, -1,
          "Executors a streaming job starts with; -1 means max(minExecutors, 1).");
  public static final ConfigOption<Boolean> SDA_DEBUG =
      booleanOption("tide.streaming.dynamicAllocation.debug", false,
          "Log each evaluation's inputs and result at INFO.");
  public static final ConfigOption<Integer> SDA_RELEASE_ROUNDS =
      intOption("tide.streaming.dynamicAllocation.releaseRounds", 5, 1,
          "seed: executors found surplus are removed over this many batches.");
  public static final ConfigOption<Integer> SDA_REMEMBER_BATCH_SIZE =
      intOption("tide.streaming.dynamicAllocation.rememberBatchSize", 1, 1,
          "seed: processing time is the mean of this many last completed batches.");
  public static final ConfigOption<Integer> SDA_DELAY_ROUNDS =
      intOption("tide.streaming.dynamicAllocation.delay.rounds", 10, 0,
          "seed: batches submitted before the policy first acts.");
  public static final ConfigOption<Double> SDA_RESERVE_RATE =
      doubleOption("tide.streaming.dynamicAllocation.reserveRate", 0.2,
          "seed: fraction of the interval kept free of processing; from 0 up to (not"
          + " including) 1.")
          .withCheck(r -> r >= 0 && r < 1, "must be at least 0 and below 1");
  public static final ConfigOption<Double> SDA_TARGET_UTILIZATION =
      doubleOption("tide.streaming.dynamicAllocation.proportional.targetUtilization", 0.9,
          "proportional: fraction of the interval (after the batch's fixed overhead) its tasks"
          + " are sized to fill; the rest absorbs noise; above 0, at most 1.")
          .withCheck(r -> r > 0 && r <= 1, "must be above 0 and at most 1");
  public static final ConfigOption<Duration> SDA_CATCH_UP_TIME =
      durationOption("tide.streaming.dynamicAllocation.proportional.catchUpTime", "30s",
          "proportional: waiting batches' records are sized to be cleared within this time.")
          .withCheck(d -> !d.isZero(), "must be above 0");
  public static final ConfigOption<Double> SDA_SCALE_DOWN_MARGIN =
      doubleOption("tide.streaming.dynamicAllocation.proportional.scaleDownMargin", 0.2,
          "proportional: scale down only when the size is below the executors by this fraction;"
          + " from 0 up to (not including) 1.")
          .withCheck(r -> r >= 0 && r < 1, "must be at least 0 and below 1");
  public static final ConfigOption<Integer> SDA_SCALE_DOWN_BATCHES =
      intOption("tide.streaming.dynamicAllocation.proportional.scaleDownBatches", 3, 1,
          "proportional: ... for this many batches in a row.");
  public static final ConfigOption<Double> SDA_MAX_SCALE_DOWN_STEP =
      doubleOption("tide.streaming.dynamicAllocation.proportional.maxScaleDownStep", 0.5,
          "proportional: at most this fraction of the executors is removed at once; above 0,"
          + " at most 1.")
          .withCheck(r -> r > 0 && r <= 1, "must be above 0 and at most 1");

  // Settings of the built-in jobs (dev.tide.driver.jobs); a job reads its settings from here so
  // that conf/tide-site.xml and its test see them.
  public static final ConfigOption<Integer> WORDCOUNT_REDUCERS =
      intOption("tide.wordcount.reducers", 2, 1, "Reduce tasks (output files) of the wordcount"
          + " job.");
  public static final ConfigOption<Long> WORDCOUNT_SPLIT_SIZE =
      bytesOption("tide.wordcount.splitSize", "0", 0, "Bytes of input per wordcount map task"
          + " (262144, 64m ...); 0 means one split per file block, each preferring the hosts"
          + " that store its block.");
  public static final ConfigOption<Integer> SORT_REDUCERS =
      intOption("tide.sort.reducers", 0, 0, "Reduce tasks (output files, each one key range) of"
          + " the sort job; 0 means one per input split.");
  public static final ConfigOption<Integer> SORT_RECORD_BYTES =
      intOption("tide.sort.recordBytes", 100, 2, "Length of each fixed-size record the sort and"
          + " sortvalidate jobs read (TeraGen's records are 100 bytes).");
  public static final ConfigOption<Integer> SORT_KEY_BYTES =
      intOption("tide.sort.keyBytes", 10, 1, "Leading bytes of a record that form its sort key"
          + " (compared as unsigned bytes; TeraSort's keys are 10 bytes).");
  public static final ConfigOption<Integer> SORT_SAMPLES =
      intOption("tide.sort.samples", 100_000, 1, "Keys the sort job samples (from up to 10"
          + " input splits, as TeraSort) to choose its reducers' key ranges.");

  public static List<ConfigOption<?>> all() {
    return List.of(JOB, AppOptions.JOB_ARGS, AppOptions.USER_CLASSPATH_FIRST,
        AppOptions.EXECUTOR_CORES, AppOptions.TASK_CPUS, AppOptions.EXECUTOR_MEMORY_MB,
        EXECUTOR_MEMORY_OVERHEAD_MB, EXECUTOR_JAVA_OPTS, EXECUTOR_MAX_FAILURES,
        EXECUTOR_REGISTRATION_TIMEOUT, AppOptions.EXECUTOR_HEARTBEAT_INTERVAL,
        EXECUTOR_HEARTBEAT_TIMEOUT, AppOptions.NETWORK_CRYPTO_ENABLED,
        ExecutorOptions.SORT_BUFFER_BYTES,
        ExecutorOptions.CACHE_MEMORY, ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED,
        ExecutorOptions.MAX_BYTES_IN_FLIGHT, ExecutorOptions.SHUFFLE_CONNECT_RETRIES,
        TASK_MAX_ATTEMPTS,
        STAGE_MAX_CONSECUTIVE_ATTEMPTS, SPECULATION, SPECULATION_QUANTILE,
        SPECULATION_MULTIPLIER, SPECULATION_MIN_TASK_RUNTIME,
        DRIVER_PORT, EVENT_LOG_ENABLED, EVENT_LOG_DIR,
        DA_ENABLED, DA_MIN_EXECUTORS, DA_MAX_EXECUTORS, DA_INITIAL_EXECUTORS,
        DA_EXECUTOR_IDLE_TIMEOUT, DA_EXECUTOR_ALLOCATION_RATIO, DA_SCHEDULER_BACKLOG_TIMEOUT,
        DA_SUSTAINED_SCHEDULER_BACKLOG_TIMEOUT, DA_CACHED_EXECUTOR_IDLE_TIMEOUT, DA_RAMP_UP,
        DA_ADAPTIVE_IDLE_TIMEOUT, DA_EARLY_RELEASE, DA_LOOKAHEAD, DA_IMMEDIATE_FIRST_REQUEST,
        DA_ARRIVAL_HOLD, DA_ARRIVAL_HOLD_WEIGHT, DA_IDLE_ALLOWANCE, DA_ARRIVAL_TREND,
        DA_ARRIVAL_AT_ONCE,
        STREAMING_BATCH_INTERVAL, STREAMING_STOP_AFTER, STREAMING_CHECKPOINT_DIR,
        STREAMING_RATE_SCHEDULE, STREAMING_RATE_COST, STREAMING_RATE_SPIN, STREAMING_RATE_SPLITS,
        SDA_ENABLED, SDA_POLICY, SDA_MIN_EXECUTORS, SDA_MAX_EXECUTORS, SDA_INITIAL_EXECUTORS,
        SDA_DEBUG, SDA_RELEASE_ROUNDS, SDA_REMEMBER_BATCH_SIZE, SDA_DELAY_ROUNDS,
        SDA_RESERVE_RATE, SDA_TARGET_UTILIZATION, SDA_CATCH_UP_TIME, SDA_SCALE_DOWN_MARGIN,
        SDA_SCALE_DOWN_BATCHES, SDA_MAX_SCALE_DOWN_STEP,
        WORDCOUNT_REDUCERS, WORDCOUNT_SPLIT_SIZE, SORT_REDUCERS, SORT_RECORD_BYTES,
        SORT_KEY_BYTES, SORT_SAMPLES);
  }
}
