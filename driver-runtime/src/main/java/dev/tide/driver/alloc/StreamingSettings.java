package dev.tide.driver.alloc;

import dev.tide.app.AppOptions;
import dev.tide.driver.conf.TideOptions;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * A streaming job's allocation settings ({@code tide.streaming.dynamicAllocation.*}, the batch
 * interval and the executor's task slots), validated together; every error names the key and
 * the value.
 *
 * @param initialExecutors resolved: {@code -1} in the settings means {@code max(min, 1)}
 * @param tasksPerExecutor {@code tide.executor.cores / tide.task.cpus}
 */
public record StreamingSettings(boolean enabled, Policy policy, long intervalMillis,
    int minExecutors, int maxExecutors, int initialExecutors, int tasksPerExecutor,
    boolean debug, int releaseRounds, int rememberBatchSize, int delayRounds, double reserveRate,
    double targetUtilization, long catchUpMillis, double scaleDownMargin, int scaleDownBatches,
    double maxScaleDownStep) {

  /** {@code tide.streaming.dynamicAllocation.policy}. */
  public enum Policy {
    SEED, PROPORTIONAL;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public StreamingSettings {
    if (intervalMillis <= 0) {
      throw new IllegalArgumentException(TideOptions.STREAMING_BATCH_INTERVAL.key()
          + " must be above 0, not " + intervalMillis + "ms");
    }
    if (minExecutors < 0 || minExecutors > maxExecutors) {
      throw new IllegalArgumentException(TideOptions.SDA_MIN_EXECUTORS.key() + " ("
          + minExecutors + ") must be from 0 to " + TideOptions.SDA_MAX_EXECUTORS.key() + " ("
          + maxExecutors + ")");
    }
    if (initialExecutors < minExecutors || initialExecutors > maxExecutors) {
      throw new IllegalArgumentException(TideOptions.SDA_INITIAL_EXECUTORS.key() + " ("
          + initialExecutors + ") is outside [" + minExecutors + ", " + maxExecutors + "]");
    }
    if (tasksPerExecutor < 1) {
      throw new IllegalArgumentException("task slots per executor (" + AppOptions.EXECUTOR_CORES
          .key() + " / " + AppOptions.TASK_CPUS.key() + ") must be at least 1, not "
          + tasksPerExecutor);
    }
    atLeast(TideOptions.SDA_RELEASE_ROUNDS.key(), releaseRounds, 1);
    atLeast(TideOptions.SDA_REMEMBER_BATCH_SIZE.key(), rememberBatchSize, 1);
    atLeast(TideOptions.SDA_DELAY_ROUNDS.key(), delayRounds, 0);
    atLeast(TideOptions.SDA_SCALE_DOWN_BATCHES.key(), scaleDownBatches, 1);
    if (!(reserveRate >= 0 && reserveRate < 1)) {
      throw new IllegalArgumentException(TideOptions.SDA_RESERVE_RATE.key() + " (" + reserveRate
          + ") must be at least 0 and below 1");
    }
    if (!(targetUtilization > 0 && targetUtilization <= 1)) {
      throw new IllegalArgumentException(TideOptions.SDA_TARGET_UTILIZATION.key() + " ("
          + targetUtilization + ") must be above 0 and at most 1");
    }
    if (catchUpMillis <= 0) {
      throw new IllegalArgumentException(TideOptions.SDA_CATCH_UP_TIME.key() + " ("
          + catchUpMillis + "ms) must be above 0");
    }
    if (!(scaleDownMargin >= 0 && scaleDownMargin < 1)) {
      throw new IllegalArgumentException(TideOptions.SDA_SCALE_DOWN_MARGIN.key() + " ("
          + scaleDownMargin + ") must be at least 0 and below 1");
    }
    if (!(maxScaleDownStep > 0 && maxScaleDownStep <= 1)) {
      throw new IllegalArgumentException(TideOptions.SDA_MAX_SCALE_DOWN_STEP.key() + " ("
          + maxScaleDownStep + ") must be above 0 and at most 1");
    }
  }

  private static void atLeast(String key, int value, int least) {
    if (value < least) {
      throw new IllegalArgumentException(key + " (" + value + ") must be at least " + least);
    }
  }

  /** Reads and validates the settings; {@link IllegalArgumentException} names key and value. */
  public static StreamingSettings from(Configuration conf) {
    int cores = AppOptions.EXECUTOR_CORES.get(conf);
    int taskCpus = AppOptions.TASK_CPUS.get(conf);
    int min = TideOptions.SDA_MIN_EXECUTORS.get(conf);
    int max = TideOptions.SDA_MAX_EXECUTORS.get(conf);
    if (min > max) {
      throw new IllegalArgumentException(TideOptions.SDA_MIN_EXECUTORS.key() + " (" + min
          + ") is above " + TideOptions.SDA_MAX_EXECUTORS.key() + " (" + max + ")");
    }
    int initial = TideOptions.SDA_INITIAL_EXECUTORS.get(conf);
    return new StreamingSettings(TideOptions.SDA_ENABLED.get(conf), policy(conf),
        TideOptions.STREAMING_BATCH_INTERVAL.get(conf).toMillis(), min, max,
        initial < 0 ? Math.max(min, 1) : initial, Math.max(1, cores / Math.max(taskCpus, 1)),
        TideOptions.SDA_DEBUG.get(conf), TideOptions.SDA_RELEASE_ROUNDS.get(conf),
        TideOptions.SDA_REMEMBER_BATCH_SIZE.get(conf), TideOptions.SDA_DELAY_ROUNDS.get(conf),
        TideOptions.SDA_RESERVE_RATE.get(conf), TideOptions.SDA_TARGET_UTILIZATION.get(conf),
        TideOptions.SDA_CATCH_UP_TIME.get(conf).toMillis(),
        TideOptions.SDA_SCALE_DOWN_MARGIN.get(conf), TideOptions.SDA_SCALE_DOWN_BATCHES.get(conf),
        TideOptions.SDA_MAX_SCALE_DOWN_STEP.get(conf));
  }

  /**
   * Refuses settings that enable the batch and the streaming policy together: the batch policy
   * is on by default, so only a batch setting written explicitly for the job ({@code -D
   * tide.dynamicAllocation.enabled=true}, or set in code) conflicts. A value read from a
   * configuration file does not: the tarball's {@code conf/tide-site.xml}, which {@code bin/tide}
   * puts on the client's classpath, writes out every default, this one too.
   */
  public static void checkNotBothEnabled(Configuration conf) {
    String batch = conf.getTrimmed(TideOptions.DA_ENABLED.key());
    String[] sources = conf.getPropertySources(TideOptions.DA_ENABLED.key());
    boolean fromFile = sources != null && sources.length > 0
        && sources[sources.length - 1].endsWith(".xml");
    if (TideOptions.SDA_ENABLED.get(conf) && batch != null && batch.equalsIgnoreCase("true")
        && !fromFile) {
      throw new IllegalArgumentException(TideOptions.DA_ENABLED.key() + "=true and "
          + TideOptions.SDA_ENABLED.key() + "=true: batch and streaming dynamic allocation"
          + " cannot both be active for one job; a streaming job with "
          + TideOptions.SDA_ENABLED.key() + "=true is sized by the streaming policy only,"
          + " so remove " + TideOptions.DA_ENABLED.key() + " (or set it to false)");
    }
  }

  /** Defaults for tests and the simulator: the design's keys, {@code policy}, the bounds given. */
  public static StreamingSettings defaults(Policy policy, long intervalMillis, int min, int max) {
    return new StreamingSettings(true, policy, intervalMillis, min, max, Math.max(min, 1), 1,
        false, 5, 1, 10, 0.2, 0.9, 30_000, 0.2, 3, 0.5);
  }

  /** One line for the start-up log. */
  public String describe() {
    if (!enabled) {
      return "streaming dynamic allocation off";
    }
    String common = "streaming dynamic allocation on (" + policy + "): interval "
        + intervalMillis + " ms, min " + minExecutors + ", max " + maxExecutors + ", initial "
        + initialExecutors;
    return policy == Policy.SEED
        ? common + ", delay.rounds " + delayRounds + ", releaseRounds " + releaseRounds
            + ", rememberBatchSize " + rememberBatchSize + ", reserveRate " + reserveRate
        : common + ", targetUtilization " + targetUtilization + ", catchUpTime " + catchUpMillis
            + " ms, scaleDownMargin " + scaleDownMargin + " for " + scaleDownBatches
            + " batches, maxScaleDownStep " + maxScaleDownStep;
  }

  private static Policy policy(Configuration conf) {
    String text = TideOptions.SDA_POLICY.get(conf).trim();
    for (Policy p : Policy.values()) {
      if (p.toString().equalsIgnoreCase(text)) {
        return p;
      }
    }
    throw new IllegalArgumentException("bad value for " + TideOptions.SDA_POLICY.key() + " = '"
        + text + "': expected seed or proportional");
  }
}
