package dev.tide.driver.scheduler;

import dev.tide.driver.conf.TideOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Which running tasks of a stage are stragglers worth a second, speculative attempt (Spark's
 * rule): once {@code quantile} of the stage's tasks have succeeded, a task whose only attempt has
 * run longer than {@code multiplier} times the median run time of the succeeded ones, and at
 * least {@code minTaskRuntimeMillis}, is one. Pure: the caller passes the clock's time.
 */
public final class SpeculationRule {
  private final double quantile;
  private final double multiplier;
  private final long minTaskRuntimeMillis;

  /** A task with one running attempt, started at {@code startMillis}. */
  public record RunningTask(int index, long startMillis) {}

  /** A straggler: its attempt has run {@code runningMillis}, over {@code thresholdMillis}. */
  public record Straggler(int index, long runningMillis, long thresholdMillis) {}

  public SpeculationRule(double quantile, double multiplier, long minTaskRuntimeMillis) {
    this.quantile = quantile;
    this.multiplier = multiplier;
    this.minTaskRuntimeMillis = minTaskRuntimeMillis;
  }

  /** The rule of the job's settings, or null when {@code tide.speculation} is off. */
  public static SpeculationRule from(Configuration conf) {
    if (!TideOptions.SPECULATION.get(conf)) {
      return null;
    }
    return new SpeculationRule(TideOptions.SPECULATION_QUANTILE.get(conf),
        TideOptions.SPECULATION_MULTIPLIER.get(conf),
        TideOptions.SPECULATION_MIN_TASK_RUNTIME.get(conf).toMillis());
  }

  /**
   * @param tasks the stage's number of tasks
   * @param succeededMillis run times of its succeeded tasks, ascending
   * @param running its tasks with exactly one running attempt and no output yet
   * @return the stragglers among {@code running}, in its order; none before enough tasks
   *     succeeded
   */
  public List<Straggler> stragglers(int tasks, long[] succeededMillis, List<RunningTask> running,
      long nowMillis) {
    List<Straggler> out = new ArrayList<>();
    int needed = Math.max(1, (int) Math.floor(quantile * tasks));
    if (succeededMillis.length < needed || running.isEmpty()) {
      return out;
    }
    long threshold = Math.max(minTaskRuntimeMillis,
        (long) Math.ceil(multiplier * median(succeededMillis)));
    for (RunningTask r : running) {
      long ran = nowMillis - r.startMillis();
      if (ran > threshold) {
        out.add(new Straggler(r.index(), ran, threshold));
      }
    }
    return out;
  }

  private static double median(long[] ascending) {
    int n = ascending.length;
    return n % 2 == 1 ? ascending[n / 2] : (ascending[n / 2 - 1] + ascending[n / 2]) / 2.0;
  }
}
