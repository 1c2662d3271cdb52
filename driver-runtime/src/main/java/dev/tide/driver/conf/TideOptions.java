package dev.tide.driver.conf;

import static dev.tide.driver.conf.ConfigOption.booleanOption;
import static dev.tide.driver.conf.ConfigOption.durationOption;
import static dev.tide.driver.conf.ConfigOption.intOption;
import static dev.tide.driver.conf.ConfigOption.memoryMbOption;
import static dev.tide.driver.conf.ConfigOption.stringOption;

import java.time.Duration;
import java.util.List;

/** Every setting of the driver and executors, with its default. conf/tide-site.xml mirrors it. */
public final class TideOptions {
  private TideOptions() {}

  public static final ConfigOption<String> JOB =
      stringOption("tide.job", "", "Job to run: a built-in name (wordcount, sleep) or the"
          + " fully qualified name of a dev.tide.driver.job.TideJob class.");
  public static final ConfigOption<String> JOB_ARGS =
      stringOption("tide.job.args", "", "The job's arguments (set by the client).");

  public static final ConfigOption<Integer> EXECUTOR_CORES =
      intOption("tide.executor.cores", 1, 1, "Task slots (threads) per executor.");
  public static final ConfigOption<Integer> TASK_CPUS =
      intOption("tide.task.cpus", 1, 1, "Cores each task uses.");
  public static final ConfigOption<Integer> EXECUTOR_MEMORY_MB =
      memoryMbOption("tide.executor.memory", "512m", 32, "Heap of each executor JVM.");
  public static final ConfigOption<Integer> EXECUTOR_MEMORY_OVERHEAD_MB =
      memoryMbOption("tide.executor.memoryOverhead", "256m", 0,
          "Container memory beyond the executor heap.");
  public static final ConfigOption<String> EXECUTOR_JAVA_OPTS =
      stringOption("tide.executor.javaOpts", "", "Extra JVM options for executors.");
  public static final ConfigOption<Integer> EXECUTOR_MAX_FAILURES =
      intOption("tide.executor.maxFailures", 6, 1,
          "Executor failures (containers that exited with an error) before the job fails.");
  public static final ConfigOption<Duration> EXECUTOR_REGISTRATION_TIMEOUT =
      durationOption("tide.executor.registrationTimeout", "60s",
          "How long an executor keeps retrying to register with the driver before it exits.");
  public static final ConfigOption<Integer> TASK_MAX_ATTEMPTS =
      intOption("tide.task.maxAttempts", 4, 1, "Attempts of one task before the job fails.");
  public static final ConfigOption<Integer> DRIVER_PORT =
      intOption("tide.driver.port", 0, 0, "Driver RPC port; 0 picks a free one.");
  public static final ConfigOption<String> EVENT_LOG_DIR =
      stringOption("tide.eventLog.dir", "", "If set, a directory (any Hadoop FileSystem URI) where"
          + " the driver writes one event log per application: executors added and removed,"
          + " container outcomes, tasks, and a timeline of target/running/pending.");

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

  public static List<ConfigOption<?>> all() {
    return List.of(JOB, JOB_ARGS, EXECUTOR_CORES, TASK_CPUS, EXECUTOR_MEMORY_MB,
        EXECUTOR_MEMORY_OVERHEAD_MB, EXECUTOR_JAVA_OPTS, EXECUTOR_MAX_FAILURES,
        EXECUTOR_REGISTRATION_TIMEOUT, TASK_MAX_ATTEMPTS, DRIVER_PORT, EVENT_LOG_DIR,
        DA_ENABLED, DA_MIN_EXECUTORS, DA_MAX_EXECUTORS, DA_INITIAL_EXECUTORS,
        DA_EXECUTOR_IDLE_TIMEOUT);
  }
}
