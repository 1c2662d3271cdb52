package dev.tide.bench.mrcompare;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * What YARN reports about one ended application: its final status, the RM's start-to-finish
 * time and the resources it held ({@link ApplicationResourceUsageReport}: the sum over its
 * containers of vcores x seconds and MiB x seconds they were allocated).
 *
 * @param state the RM's last state of the application
 * @param finalStatus the status its AM unregistered with
 * @param rmMillis the RM's finish time minus its start (submission) time
 * @param vcoreSeconds vcore-seconds, all containers including the AM's
 * @param memoryMbSeconds MiB-seconds, all containers including the AM's
 */
record ApplicationUsage(YarnApplicationState state, FinalApplicationStatus finalStatus,
    long rmMillis, long vcoreSeconds, long memoryMbSeconds) {

  static final Set<YarnApplicationState> ENDED = EnumSet.of(YarnApplicationState.FINISHED,
      YarnApplicationState.FAILED, YarnApplicationState.KILLED);
  private static final long POLL_MILLIS = 250;
  /** The RM adds a container's usage when it learns the container completed. */
  private static final Duration SETTLE = Duration.ofSeconds(1);

  boolean succeeded() {
    return state == YarnApplicationState.FINISHED
        && finalStatus == FinalApplicationStatus.SUCCEEDED;
  }

  /**
   * Polls the RM until {@code appId} has ended (or {@code timeout} passed) and its usage has not
   * changed for {@link #SETTLE}: the RM can report the application FINISHED before the AM
   * container's completion and usage reach it.
   */
  static ApplicationUsage awaitEnd(YarnClient yarn, ApplicationId appId, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    ApplicationReport report = yarn.getApplicationReport(appId);
    while (!ENDED.contains(report.getYarnApplicationState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(appId + " still " + report.getYarnApplicationState()
            + " after " + timeout);
      }
      Thread.sleep(POLL_MILLIS);
      report = yarn.getApplicationReport(appId);
    }
    ApplicationUsage usage = of(report);
    long settleDeadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < SETTLE.toNanos()
        && System.nanoTime() < settleDeadline) {
      Thread.sleep(POLL_MILLIS);
      ApplicationUsage next = of(yarn.getApplicationReport(appId));
      if (!next.equals(usage)) {
        usage = next;
        stableSince = System.nanoTime();
      }
    }
    return usage;
  }

  static boolean ended(YarnClient yarn, ApplicationId appId) throws Exception {
    return ENDED.contains(yarn.getApplicationReport(appId).getYarnApplicationState());
  }

  private static ApplicationUsage of(ApplicationReport report) {
    ApplicationResourceUsageReport resources = report.getApplicationResourceUsageReport();
    return new ApplicationUsage(report.getYarnApplicationState(),
        report.getFinalApplicationStatus(), report.getFinishTime() - report.getStartTime(),
        resources.getVcoreSeconds(), resources.getMemorySeconds());
  }
}
