package dev.tide.driver.alloc;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * The batch allocation policy's effective settings ({@code tide.dynamicAllocation.*} plus the
 * executor's task slots), validated together. Derived defaults are resolved here:
 * {@code initialExecutors} (-1 = minExecutors), {@code sustainedSchedulerBacklogTimeout} (empty =
 * schedulerBacklogTimeout) and {@code cachedExecutorIdleTimeout} (empty = 2 x
 * executorIdleTimeout). Every error names the key and the bad value.
 *
 * @param maxExecutors {@link Integer#MAX_VALUE} means unlimited
 * @param tasksPerExecutor {@code tide.executor.cores / tide.task.cpus}
 * @param executorAllocationRatio in (0, 1]; exact decimal, so that ceilings are exact
 * @param arrivalHoldWeight {@code arrivalHoldWeight}: what the arrival hold counts for a released
 *     executor that the next arrival needs, in start latencies (at least 1)
 * @param idleAllowance {@code idleAllowance}: the recent idle executor time, per busy executor
 *     time, under which the lookahead's rent-or-buy cap lets no kept executor go (0: none)
 */
public record AllocationSettings(boolean enabled, int minExecutors, int maxExecutors,
    int initialExecutors, int tasksPerExecutor, BigDecimal executorAllocationRatio,
    long schedulerBacklogTimeoutMillis, long sustainedSchedulerBacklogTimeoutMillis,
    long executorIdleTimeoutMillis, long cachedExecutorIdleTimeoutMillis, RampUpMode rampUp,
    Rules rules, int arrivalHoldWeight, double idleAllowance) {

  /** {@code tide.dynamicAllocation.rampUp}. */
  public enum RampUpMode {
    EXPONENTIAL, HEADROOM, BACKLOG;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The rules that bring allocation near a clairvoyant one, each behind its own setting
   * (DESIGN.md "Allocation policy (batch)").
   *
   * @param adaptiveIdleTimeout {@code adaptiveIdleTimeout}: the idle timeout follows the measured
   *     start latency and how often released executors were needed again soon, with
   *     {@code executorIdleTimeout} its ceiling
   * @param earlyRelease {@code earlyRelease}: with no task pending and more stages of the plan
   *     ahead, idle executors beyond what the running tasks and the next stages need go at once
   * @param lookahead {@code lookahead}: executors for a stage are asked for one start latency
   *     before it becomes runnable, and kept only for a stage due within two
   * @param immediateFirstRequest {@code immediateFirstRequest}: the first request of a backlog
   *     goes out at once when the backlog will clearly outlast an executor's start
   * @param arrivalHold {@code arrivalHold}: while new work keeps arriving, idle executors that
   *     the next arrival is likely to use are kept for as long as the gaps between arrivals
   *     make that worth it
   * @param arrivalTrend {@code arrivalTrend}: while new work arrives at a rising rate, the
   *     executors the trend needs two start latencies ahead are asked for now
   * @param arrivalAtOnce {@code arrivalAtOnce}: when new work arrives, what the tasks need is
   *     asked for at once
   */
  public record Rules(boolean adaptiveIdleTimeout, boolean earlyRelease, boolean lookahead,
      boolean immediateFirstRequest, boolean arrivalHold, boolean arrivalTrend,
      boolean arrivalAtOnce) {
    /** Spark's semantics: none of the rules. */
    public static final Rules NONE = new Rules(false, false, false, false, false, false, false);
    /** All of the rules (the shipped defaults). */
    public static final Rules ALL = new Rules(true, true, true, true, true, true, true);

    @Override
    public String toString() {
      return "adaptive idle timeout " + onOff(adaptiveIdleTimeout) + ", early release "
          + onOff(earlyRelease) + ", lookahead " + onOff(lookahead) + ", immediate first request "
          + onOff(immediateFirstRequest) + ", arrival hold " + onOff(arrivalHold)
          + ", arrival trend " + onOff(arrivalTrend) + ", arrival at once "
          + onOff(arrivalAtOnce);
    }

    private static String onOff(boolean on) {
      return on ? "on" : "off";
    }
  }

  public AllocationSettings {
    if (minExecutors < 0) {
      throw bad(TideOptions.DA_MIN_EXECUTORS, minExecutors, "must be at least 0");
    }
    if (minExecutors > maxExecutors) {
      throw new IllegalArgumentException(TideOptions.DA_MIN_EXECUTORS.key() + " ("
          + minExecutors + ") is above " + TideOptions.DA_MAX_EXECUTORS.key() + " ("
          + maxExecutors + ")");
    }
    if (initialExecutors < minExecutors || initialExecutors > maxExecutors) {
      throw new IllegalArgumentException(TideOptions.DA_INITIAL_EXECUTORS.key() + " ("
          + initialExecutors + ") is outside [" + TideOptions.DA_MIN_EXECUTORS.key() + " ("
          + minExecutors + "), " + TideOptions.DA_MAX_EXECUTORS.key() + " (" + maxExecutors
          + ")]");
    }
    if (tasksPerExecutor < 1) {
      throw new IllegalArgumentException("tasks per executor must be at least 1, not "
          + tasksPerExecutor);
    }
    if (executorAllocationRatio.signum() <= 0
        || executorAllocationRatio.compareTo(BigDecimal.ONE) > 0) {
      throw bad(TideOptions.DA_EXECUTOR_ALLOCATION_RATIO, executorAllocationRatio,
          "must be above 0 and at most 1");
    }
    if (schedulerBacklogTimeoutMillis <= 0) {
      throw bad(TideOptions.DA_SCHEDULER_BACKLOG_TIMEOUT, schedulerBacklogTimeoutMillis + "ms",
          "must be above 0");
    }
    if (sustainedSchedulerBacklogTimeoutMillis <= 0) {
      throw bad(TideOptions.DA_SUSTAINED_SCHEDULER_BACKLOG_TIMEOUT,
          sustainedSchedulerBacklogTimeoutMillis + "ms", "must be above 0");
    }
    if (executorIdleTimeoutMillis < 0 || cachedExecutorIdleTimeoutMillis < 0) {
      throw new IllegalArgumentException("idle timeouts must not be negative");
    }
    if (arrivalHoldWeight < 1) {
      throw bad(TideOptions.DA_ARRIVAL_HOLD_WEIGHT, arrivalHoldWeight, "must be at least 1");
    }
    if (!(idleAllowance >= 0) || Double.isInfinite(idleAllowance)) {
      throw bad(TideOptions.DA_IDLE_ALLOWANCE, idleAllowance, "must be at least 0");
    }
  }

  /** Reads and validates the settings; {@link IllegalArgumentException} names key and value. */
  public static AllocationSettings from(Configuration conf) {
    int cores = AppOptions.EXECUTOR_CORES.get(conf);
    int taskCpus = AppOptions.TASK_CPUS.get(conf);
    if (taskCpus > cores) {
      throw new IllegalArgumentException(AppOptions.TASK_CPUS.key() + " (" + taskCpus
          + ") is above " + AppOptions.EXECUTOR_CORES.key() + " (" + cores + ")");
    }
    int min = TideOptions.DA_MIN_EXECUTORS.get(conf);
    int initial = TideOptions.DA_INITIAL_EXECUTORS.get(conf);
    long backlog = TideOptions.DA_SCHEDULER_BACKLOG_TIMEOUT.get(conf).toMillis();
    long idle = TideOptions.DA_EXECUTOR_IDLE_TIMEOUT.get(conf).toMillis();
    return new AllocationSettings(TideOptions.DA_ENABLED.get(conf), min,
        TideOptions.DA_MAX_EXECUTORS.get(conf), initial < 0 ? min : initial, cores / taskCpus,
        ratio(conf), backlog,
        durationOr(conf, TideOptions.DA_SUSTAINED_SCHEDULER_BACKLOG_TIMEOUT, backlog, false),
        idle, durationOr(conf, TideOptions.DA_CACHED_EXECUTOR_IDLE_TIMEOUT, 2 * idle, true),
        rampUp(conf), new Rules(TideOptions.DA_ADAPTIVE_IDLE_TIMEOUT.get(conf),
            TideOptions.DA_EARLY_RELEASE.get(conf), TideOptions.DA_LOOKAHEAD.get(conf),
            TideOptions.DA_IMMEDIATE_FIRST_REQUEST.get(conf),
            TideOptions.DA_ARRIVAL_HOLD.get(conf), TideOptions.DA_ARRIVAL_TREND.get(conf),
            TideOptions.DA_ARRIVAL_AT_ONCE.get(conf)),
        TideOptions.DA_ARRIVAL_HOLD_WEIGHT.get(conf), TideOptions.DA_IDLE_ALLOWANCE.get(conf));
  }

  /** The shipped defaults with the given bounds and slots; for tests and the simulator. */
  public static AllocationSettings defaults(int min, int max, int tasksPerExecutor) {
    return from(new Configuration(false)).withBounds(min, max, tasksPerExecutor);
  }

  /**
   * Spark's semantics with the given bounds and slots (exponential ramp, 60 s idle timeout, none
   * of the {@link Rules}, no idle allowance); for tests and the simulator.
   */
  public static AllocationSettings classic(int min, int max, int tasksPerExecutor) {
    return new AllocationSettings(true, min, max, min, tasksPerExecutor, BigDecimal.ONE, 1_000,
        1_000, 60_000, 120_000, RampUpMode.EXPONENTIAL, Rules.NONE,
        TideOptions.DA_ARRIVAL_HOLD_WEIGHT.defaultValue(), 0);
  }

  private AllocationSettings withBounds(int min, int max, int slots) {
    return new AllocationSettings(enabled, min, max, min, slots, executorAllocationRatio,
        schedulerBacklogTimeoutMillis, sustainedSchedulerBacklogTimeoutMillis,
        executorIdleTimeoutMillis, cachedExecutorIdleTimeoutMillis, rampUp, rules,
        arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withRules(Rules newRules) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, rampUp, newRules, arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withInitialExecutors(int initial) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initial, tasksPerExecutor,
        executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, rampUp, rules, arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withRatio(BigDecimal ratio) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, ratio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, rampUp, rules, arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withIdleTimeouts(long idleMillis, long cachedIdleMillis) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, idleMillis, cachedIdleMillis, rampUp, rules,
        arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withRampUp(RampUpMode mode) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, mode, rules, arrivalHoldWeight, idleAllowance);
  }

  public AllocationSettings withArrivalHoldWeight(int weight) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, rampUp, rules, weight, idleAllowance);
  }

  public AllocationSettings withIdleAllowance(double allowance) {
    return new AllocationSettings(enabled, minExecutors, maxExecutors, initialExecutors,
        tasksPerExecutor, executorAllocationRatio, schedulerBacklogTimeoutMillis,
        sustainedSchedulerBacklogTimeoutMillis, executorIdleTimeoutMillis,
        cachedExecutorIdleTimeoutMillis, rampUp, rules, arrivalHoldWeight, allowance);
  }

  /** One line for the start-up log. */
  public String describe() {
    if (!enabled) {
      return "dynamic allocation off: " + Math.max(initialExecutors, 1) + " executors, "
          + tasksPerExecutor + " tasks each";
    }
    return "dynamic allocation on: min " + minExecutors + ", max "
        + (maxExecutors == Integer.MAX_VALUE ? "unlimited" : maxExecutors) + ", initial "
        + initialExecutors + ", " + tasksPerExecutor + " tasks per executor, ratio "
        + executorAllocationRatio.toPlainString() + ", backlog timeout "
        + schedulerBacklogTimeoutMillis + " ms (sustained " + sustainedSchedulerBacklogTimeoutMillis
        + " ms), idle timeout " + executorIdleTimeoutMillis + " ms (cached "
        + cachedExecutorIdleTimeoutMillis + " ms), ramp-up " + rampUp + ", " + rules
        + (rules.arrivalHold() ? ", arrival hold weight " + arrivalHoldWeight : "")
        + (rules.lookahead() ? ", idle allowance " + idleAllowance : "");
  }

  private static BigDecimal ratio(Configuration conf) {
    ConfigOption<String> option = TideOptions.DA_EXECUTOR_ALLOCATION_RATIO;
    String text = option.get(conf).trim();
    BigDecimal ratio;
    try {
      ratio = new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw bad(option, text, "expected a decimal such as 0.5");
    }
    if (ratio.signum() <= 0 || ratio.compareTo(BigDecimal.ONE) > 0) {
      throw bad(option, text, "must be above 0 and at most 1");
    }
    return ratio;
  }

  private static RampUpMode rampUp(Configuration conf) {
    String text = TideOptions.DA_RAMP_UP.get(conf).trim();
    for (RampUpMode mode : RampUpMode.values()) {
      if (mode.toString().equalsIgnoreCase(text)) {
        return mode;
      }
    }
    throw bad(TideOptions.DA_RAMP_UP, text, "expected exponential, headroom or backlog");
  }

  /** A duration held in a string option whose empty value means a derived default. */
  private static long durationOr(Configuration conf, ConfigOption<String> option,
      long fallbackMillis, boolean zeroAllowed) {
    if (option.get(conf).isBlank()) {
      return fallbackMillis;
    }
    Duration parsed = ConfigOption.durationOption(option.key(), "0", option.description())
        .get(conf);
    if (parsed.isZero() && !zeroAllowed) {
      throw bad(option, conf.get(option.key()), "must be above 0");
    }
    return parsed.toMillis();
  }

  private static IllegalArgumentException bad(ConfigOption<?> option, Object value,
      String reason) {
    return new IllegalArgumentException("bad value for " + option.key() + " = '" + value + "': "
        + reason);
  }
}
