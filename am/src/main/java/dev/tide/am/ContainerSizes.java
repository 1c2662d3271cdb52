package dev.tide.am;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The container sizes of an application (the AM's and each executor's: heap plus overhead,
 * vcores) and the check of both against the largest container the ResourceManager grants. A
 * container above that maximum is never granted: the RM refuses every allocate that asks for one,
 * so the AM checks at registration and fails the application at once, naming both figures and
 * the keys to change. Stateless.
 */
public final class ContainerSizes {
  private ContainerSizes() {}

  /** The AM's container: {@code tide.am.memory + tide.am.memoryOverhead}, {@code tide.am.cores}. */
  public static Resource am(Configuration conf) {
    return Resource.newInstance(
        AmOptions.AM_MEMORY_MB.get(conf) + AmOptions.AM_MEMORY_OVERHEAD_MB.get(conf),
        AmOptions.AM_CORES.get(conf));
  }

  /**
   * An executor's container: {@code tide.executor.memory + tide.executor.memoryOverhead},
   * {@code tide.executor.cores}.
   */
  public static Resource executor(Configuration conf) {
    return Resource.newInstance(AppOptions.EXECUTOR_MEMORY_MB.get(conf)
        + TideOptions.EXECUTOR_MEMORY_OVERHEAD_MB.get(conf), AppOptions.EXECUTOR_CORES.get(conf));
  }

  /**
   * Why the containers of this application cannot be granted under {@code maximum} (from the
   * ResourceManager's registration response), or empty when both fit.
   */
  public static Optional<String> tooLarge(Configuration conf, Resource maximum) {
    List<String> problems = new ArrayList<>();
    check("executor", executor(conf), maximum, AppOptions.EXECUTOR_MEMORY_MB,
        TideOptions.EXECUTOR_MEMORY_OVERHEAD_MB, AppOptions.EXECUTOR_CORES, conf, problems);
    check("ApplicationMaster", am(conf), maximum, AmOptions.AM_MEMORY_MB,
        AmOptions.AM_MEMORY_OVERHEAD_MB, AmOptions.AM_CORES, conf, problems);
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
  }

  private static void check(String what, Resource size, Resource maximum,
      ConfigOption<Integer> memory, ConfigOption<Integer> overhead, ConfigOption<Integer> cores,
      Configuration conf, List<String> problems) {
    List<String> fixes = new ArrayList<>();
    if (size.getMemorySize() > maximum.getMemorySize()) {
      fixes.add("lower " + memory.key() + " + " + overhead.key() + " (" + memory.get(conf)
          + " + " + overhead.get(conf) + " MiB) or raise "
          + YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB + " (the ResourceManager caps it"
          + " at the largest NodeManager's " + YarnConfiguration.NM_PMEM_MB + ")");
    }
    if (size.getVirtualCores() > maximum.getVirtualCores()) {
      fixes.add("lower " + cores.key() + " (" + cores.get(conf) + ") or raise "
          + YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES + " (the ResourceManager"
          + " caps it at the largest NodeManager's " + YarnConfiguration.NM_VCORES + ")");
    }
    if (!fixes.isEmpty()) {
      problems.add("the " + what + " container " + size + " exceeds the largest container the"
          + " ResourceManager grants, " + maximum + ": " + String.join("; ", fixes));
    }
  }
}
