package dev.tide.am;

import dev.tide.driver.conf.TideOptions;
import org.apache.hadoop.conf.Configuration;

/**
 * How many executor failures the application tolerates within
 * {@code tide.executor.failuresValidityInterval} ({@code tide.executor.maxFailures}, DESIGN.md
 * "Container outcome"). Set explicitly, that many. By default twice the executors the job may
 * run, at least 3, as Spark's {@code spark.executor.maxFailures}: with dynamic allocation
 * 2 x {@code tide.dynamicAllocation.maxExecutors} (2 x
 * {@code tide.streaming.dynamicAllocation.maxExecutors} for a job sized by the streaming
 * policy), without it 2 x the fixed executor count.
 *
 * <p>Where Spark's default becomes unlimited (dynamic allocation with maxExecutors unbounded,
 * Tide's default as Spark's), Tide's follows the job instead: twice the most executors it has
 * had starting or running at once so far. A job on a flaky cluster gets a limit that grows with
 * it, while a job whose every executor fails at start (a bad option, a missing class) still
 * ends after a few failures instead of asking for executors forever.
 */
final class MaxExecutorFailures {
  /** The setting's value that asks for the limit that follows the job. */
  static final int FOLLOWS_EXECUTORS = 0;
  /** The smallest default limit. */
  static final int AT_LEAST = 3;

  private MaxExecutorFailures() {}

  /**
   * The setting as the allocator applies it ({@link YarnAllocator.Settings#maxFailures()}): the
   * explicit limit, the default computed from the executor bounds, or
   * {@link #FOLLOWS_EXECUTORS}.
   */
  static int fromConf(Configuration conf) {
    int explicit = TideOptions.EXECUTOR_MAX_FAILURES.get(conf);
    if (explicit > 0) {
      return explicit;
    }
    int executors;
    if (TideOptions.SDA_ENABLED.get(conf)) {
      executors = TideOptions.SDA_MAX_EXECUTORS.get(conf);
    } else if (TideOptions.DA_ENABLED.get(conf)) {
      executors = TideOptions.DA_MAX_EXECUTORS.get(conf);
      if (executors == Integer.MAX_VALUE) {
        return FOLLOWS_EXECUTORS;
      }
    } else {
      int initial = TideOptions.DA_INITIAL_EXECUTORS.get(conf);
      executors = initial < 0 ? TideOptions.DA_MIN_EXECUTORS.get(conf) : initial;
    }
    return twice(executors);
  }

  /**
   * The limit in force.
   *
   * @param setting what {@link #fromConf} returned
   * @param peakExecutors the most executors the application has had starting or running at once
   */
  static int limit(int setting, int peakExecutors) {
    return setting > 0 ? setting : twice(peakExecutors);
  }

  /** How the limit came about, for the diagnostics of an application that reached it. */
  static String describe(int setting, int peakExecutors) {
    if (setting > 0) {
      return TideOptions.EXECUTOR_MAX_FAILURES.key() + " = " + setting;
    }
    return TideOptions.EXECUTOR_MAX_FAILURES.key() + " = " + limit(setting, peakExecutors)
        + " (by default twice the most executors the application had at once, "
        + peakExecutors + ", at least " + AT_LEAST + ")";
  }

  /** {@code max(3, 2 x executors)}, without overflowing. */
  static int twice(int executors) {
    return executors > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE
        : Math.max(AT_LEAST, 2 * executors);
  }
}
