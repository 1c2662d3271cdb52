package dev.tide.am;

import dev.tide.am.web.AppModel;
import dev.tide.driver.JobStatus;
import java.util.function.Supplier;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;

/**
 * The AM's metrics2 source, record {@code TideApplicationMaster} (context {@code tide}), in the
 * AM's {@code /jmx} as {@code Hadoop:service=TideAM,name=TideApplicationMaster} and in any
 * configured sink: gauges TargetExecutors, RunningExecutors, StartingExecutors,
 * PendingRemovalExecutors, PendingContainerRequests, PendingTasks, RunningTasks; counters
 * ContainersAllocated, ContainersReleased, ExecutorFailures, Batches, DelayedBatches, Spills,
 * SpilledBytes, FetchedToDiskBytes.
 */
final class AmMetricsSource implements MetricsSource {
  static final String RECORD = "TideApplicationMaster";
  static final String PREFIX = "TideAM";

  private final AppModel model;
  private final Supplier<JobStatus> status;

  AmMetricsSource(AppModel model, Supplier<JobStatus> status) {
    this.model = model;
    this.status = status;
  }

  void register(MetricsSystem system) {
    system.register(RECORD, "Tide ApplicationMaster", this);
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    AppModel.Counts c = model.counts();
    int pending = 0;
    int running = 0;
    int target = model.target();
    try {
      JobStatus s = status.get();
      pending = s.pendingTasks();
      running = s.runningTasks();
      target = s.targetExecutors();
    } catch (RuntimeException e) {
      // the driver is not started yet: no tasks
    }
    collector.addRecord(RECORD).setContext("tide")
        .addGauge(m("TargetExecutors", "executors the allocation policy asks for"), target)
        .addGauge(m("RunningExecutors", "executors registered and not being removed"),
            c.running())
        .addGauge(m("StartingExecutors", "executors launched, not registered yet"),
            c.starting())
        .addGauge(m("PendingRemovalExecutors", "executors chosen for removal, not gone yet"),
            c.pendingRemoval())
        .addGauge(m("PendingContainerRequests", "executors asked for and not yet allocated"),
            Math.max(0, target - c.running() - c.starting()))
        .addGauge(m("PendingTasks", "tasks waiting for a slot"), pending)
        .addGauge(m("RunningTasks", "tasks running"), running)
        .addCounter(m("ContainersAllocated", "containers YARN allocated"),
            c.containersAllocated())
        .addCounter(m("ContainersReleased", "containers the AM released"),
            c.containersReleased())
        .addCounter(m("ExecutorFailures", "executor containers that ended as failures"),
            c.executorFailures())
        .addCounter(m("Batches", "streaming batches completed"), c.batches())
        .addCounter(m("DelayedBatches", "streaming batches that took longer than the interval"
            + " or waited"), c.delayedBatches())
        .addCounter(m("Spills", "sort buffers spilled to local disk by map tasks"), c.spills())
        .addCounter(m("SpilledBytes", "bytes map tasks spilled to local disk"),
            c.spilledBytes())
        .addCounter(m("FetchedToDiskBytes", "fetched shuffle bytes reduce tasks wrote to local"
            + " disk (beyond their memory budget)"), c.fetchedToDiskBytes());
  }

  private static MetricsInfo m(String name, String description) {
    return Interns.info(name, description);
  }
}
