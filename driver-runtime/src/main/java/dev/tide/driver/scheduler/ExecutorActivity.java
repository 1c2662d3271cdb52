package dev.tide.driver.scheduler;

/**
 * What one executor is doing, as the AM needs it to choose which executors to give back when
 * YARN asks for resources back (preemption): an idle executor loses nothing, a busy one loses
 * its running tasks (its finished map outputs are served by the node's {@code tide_shuffle}
 * service and stay).
 *
 * @param runningTasks task attempts running on it now
 * @param lastTaskStartMillis when the most recent of them started (driver's clock); 0 when idle
 * @param idleSinceMillis when it last became idle (meaningful when {@code runningTasks == 0})
 */
public record ExecutorActivity(String executorId, int runningTasks, long lastTaskStartMillis,
    long idleSinceMillis) {
  public boolean idle() {
    return runningTasks == 0;
  }
}
