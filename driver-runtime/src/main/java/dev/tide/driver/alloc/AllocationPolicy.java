package dev.tide.driver.alloc;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.scheduler.JobScheduler.IdleExecutor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The minimal allocation policy: the target follows the tasks
 * ({@code ceil((pending + running) / tasksPerExecutor)} within [min, max]), and executors idle for
 * longer than the idle timeout are removed, never taking the count below min nor below the target.
 * Pure logic with time passed in; the driver evaluates it on a 100 ms tick.
 */
public final class AllocationPolicy {
  /** The policy's settings. */
  public record Settings(boolean enabled, int minExecutors, int maxExecutors,
      int initialExecutors, int tasksPerExecutor, long idleTimeoutMillis) {
    public Settings {
      if (minExecutors > maxExecutors) {
        throw new IllegalArgumentException(TideOptions.DA_MIN_EXECUTORS.key() + " ("
            + minExecutors + ") is above " + TideOptions.DA_MAX_EXECUTORS.key() + " ("
            + maxExecutors + ")");
      }
    }

    public static Settings from(Configuration conf) {
      int cores = TideOptions.EXECUTOR_CORES.get(conf);
      int taskCpus = TideOptions.TASK_CPUS.get(conf);
      if (taskCpus > cores) {
        throw new IllegalArgumentException(TideOptions.TASK_CPUS.key() + " (" + taskCpus
            + ") is above " + TideOptions.EXECUTOR_CORES.key() + " (" + cores + ")");
      }
      int min = TideOptions.DA_MIN_EXECUTORS.get(conf);
      int initial = TideOptions.DA_INITIAL_EXECUTORS.get(conf);
      return new Settings(TideOptions.DA_ENABLED.get(conf), min,
          TideOptions.DA_MAX_EXECUTORS.get(conf), initial < 0 ? min : initial,
          cores / taskCpus, TideOptions.DA_EXECUTOR_IDLE_TIMEOUT.get(conf).toMillis());
    }
  }

  /** What to do now: the total to ask for, and the idle executors to remove. */
  public record Decision(int targetExecutors, List<String> executorsToRemove) {}

  private final Settings settings;

  public AllocationPolicy(Settings settings) {
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  /**
   * @param activeExecutors executors running and not already being removed
   * @param idle executors with no running task
   */
  public Decision evaluate(long nowMillis, int pendingTasks, int runningTasks,
      int activeExecutors, List<IdleExecutor> idle) {
    if (!settings.enabled()) {
      return new Decision(Math.max(settings.initialExecutors(), 1), List.of());
    }
    int needed = (pendingTasks + runningTasks + settings.tasksPerExecutor() - 1)
        / settings.tasksPerExecutor();
    int target = Math.max(settings.minExecutors(), Math.min(settings.maxExecutors(), needed));
    int removable = activeExecutors - Math.max(settings.minExecutors(), target);
    List<String> remove = new ArrayList<>();
    if (removable > 0) {
      List<IdleExecutor> expired = new ArrayList<>();
      for (IdleExecutor e : idle) {
        if (nowMillis - e.idleSinceMillis() >= settings.idleTimeoutMillis()) {
          expired.add(e);
        }
      }
      expired.sort(Comparator.comparingLong(IdleExecutor::idleSinceMillis));
      for (int i = 0; i < Math.min(removable, expired.size()); i++) {
        remove.add(expired.get(i).executorId());
      }
    }
    return new Decision(target, remove);
  }
}
