package dev.tide.queue;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;

/**
 * When one test application was submitted, got its AM container, got its first executor and
 * finished, all in epoch milliseconds from the ResourceManager ({@code -1}: never). Written by the
 * sampler thread and the test thread, hence synchronized.
 */
final class AppTimeline {

  final ApplicationId appId;
  final String name;
  private long submitted = -1;
  private long amAllocated = -1;
  private long firstExecutor = -1;
  private long finished = -1;
  private FinalApplicationStatus finalStatus;
  private String amResult;

  AppTimeline(ApplicationId appId, String name) {
    this.appId = appId;
    this.name = name;
  }

  synchronized void noteContainer(boolean am, long creationTime) {
    if (am) {
      amAllocated = amAllocated < 0 ? creationTime : Math.min(amAllocated, creationTime);
    } else {
      firstExecutor = firstExecutor < 0 ? creationTime : Math.min(firstExecutor, creationTime);
    }
  }

  synchronized void finish(ApplicationReport report, String amResult) {
    this.submitted = report.getStartTime();
    this.finished = report.getFinishTime();
    this.finalStatus = report.getFinalApplicationStatus();
    this.amResult = amResult;
  }

  synchronized long submitted() {
    return submitted;
  }

  synchronized long amAllocated() {
    return amAllocated;
  }

  synchronized long firstExecutor() {
    return firstExecutor;
  }

  synchronized long finished() {
    return finished;
  }

  synchronized FinalApplicationStatus finalStatus() {
    return finalStatus;
  }

  synchronized String amResult() {
    return amResult;
  }

  /** When the AM itself said it finished (just before unregistering), or -1. */
  synchronized long amReportedFinish() {
    return amResult == null ? -1 : Long.parseLong(amResult.split(" ")[3]);
  }

  /** Milliseconds from submission to the first executor, or -1. */
  synchronized long timeToFirstExecutor() {
    return firstExecutor < 0 ? -1 : firstExecutor - submitted;
  }

  /**
   * The interval in which the application held its AM container without any executor:
   * {@code [amAllocated, firstExecutor)}, or up to its finish if it never got one.
   */
  synchronized long[] amWithoutExecutor() {
    if (amAllocated < 0) {
      return new long[] {0, 0};
    }
    long end = firstExecutor >= 0 ? firstExecutor : finished;
    return new long[] {amAllocated, Math.max(amAllocated, end)};
  }

  @Override
  public synchronized String toString() {
    return appId + "(" + name + ": submitted " + submitted + ", AM " + amAllocated
        + ", first executor " + firstExecutor + ", finished " + finished + ", " + finalStatus
        + ", AM says " + amResult + ")";
  }
}
