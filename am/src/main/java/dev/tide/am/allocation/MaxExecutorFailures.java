package dev.tide.am.allocation;

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
 *
 * @param fixed the limit, or 0 when it follows the executors
 * @param origin where a fixed limit comes from, for the diagnostics ("tide.executor.maxFailures
 *     = 6", "2 x tide.dynamicAllocation.maxExecutors = 4")
 */
public record MaxExecutorFailures(int fixed, String origin) {
  /** The smallest default limit. */
  static final int AT_LEAST = 3;

  /** An explicit limit, as if {@code tide.executor.maxFailures} were set to it. */
  public static MaxExecutorFailures of(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a limit of executor failures must be at least 1: "
          + limit);
    }
    return new MaxExecutorFailures(limit, TideOptions.EXECUTOR_MAX_FAILURES.key() + " = " + limit);
  }

  /** The default while maxExecutors is unbounded: twice the most executors at once. */
  public static MaxExecutorFailures followingExecutors() {
    return new MaxExecutorFailures(0, "");
  }

  /** The setting of {@code conf}, or its default. */
  public static MaxExecutorFailures fromConf(Configuration conf) {
    int explicit = TideOptions.EXECUTOR_MAX_FAILURES.get(conf);
    if (explicit > 0) {
      return of(explicit);
    }
    if (TideOptions.SDA_ENABLED.get(conf)) {
      return twiceThe(TideOptions.SDA_MAX_EXECUTORS.key(), TideOptions.SDA_MAX_EXECUTORS.get(conf));
    }
    if (TideOptions.DA_ENABLED.get(conf)) {
      int max = TideOptions.DA_MAX_EXECUTORS.get(conf);
      return max == Integer.MAX_VALUE ? followingExecutors()
          : twiceThe(TideOptions.DA_MAX_EXECUTORS.key(), max);
    }
    int initial = TideOptions.DA_INITIAL_EXECUTORS.get(conf);
    return initial < 0
        ? twiceThe(TideOptions.DA_MIN_EXECUTORS.key(), TideOptions.DA_MIN_EXECUTORS.get(conf))
        : twiceThe(TideOptions.DA_INITIAL_EXECUTORS.key(), initial);
  }

  private static MaxExecutorFailures twiceThe(String key, int executors) {
    return new MaxExecutorFailures(twice(executors), "by default 2 x " + key + " = " + executors
        + ", at least " + AT_LEAST);
  }

  /**
   * The limit in force.
   *
   * @param peakExecutors the most executors the application has had starting or running at once
   */
  public int limit(int peakExecutors) {
    return fixed > 0 ? fixed : twice(peakExecutors);
  }

  /** The limit and how it came about, for the diagnostics of an application that reached it. */
  public String describe(int peakExecutors) {
    String how = fixed > 0 ? origin : "by default twice the most executors the application had"
        + " at once, " + peakExecutors + ", at least " + AT_LEAST;
    return TideOptions.EXECUTOR_MAX_FAILURES.key() + " = " + limit(peakExecutors)
        + (how.startsWith(TideOptions.EXECUTOR_MAX_FAILURES.key()) ? "" : " (" + how + ")");
  }

  /** {@code max(3, 2 x executors)}, without overflowing. */
  static int twice(int executors) {
    return executors > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE
        : Math.max(AT_LEAST, 2 * executors);
  }
}
