package dev.tide.driver;

/**
 * A snapshot of a running job, as the client prints it and the AM reports it.
 *
 * @param stageIndex 1-based index of the stage now running (0 before the first)
 * @param progress 0..1, tasks done over all tasks of the job
 * @param waitingReason why executors below the target are missing, as far as the cluster side
 *     knows (for example nodes excluded for executor failures); empty when it knows none
 * @param streaming for a streaming job, its batches so far ({@code batches 12, last 2000
 *     records in 1.3 s, delay 0 ms}); empty for a batch job
 * @param damagedMapOutputs map outputs that a node's shuffle service found damaged on its disk
 *     so far (their maps were rerun); the client says so when the count grows
 */
public record JobStatus(String jobName, int stageIndex, int stageCount, int tasksDone,
    int tasksTotal, int pendingTasks, int runningTasks, int executorsRunning,
    int targetExecutors, float progress, String waitingReason, String streaming,
    int damagedMapOutputs) {

  /** A status with no damaged map output. */
  public JobStatus(String jobName, int stageIndex, int stageCount, int tasksDone,
      int tasksTotal, int pendingTasks, int runningTasks, int executorsRunning,
      int targetExecutors, float progress, String waitingReason, String streaming) {
    this(jobName, stageIndex, stageCount, tasksDone, tasksTotal, pendingTasks, runningTasks,
        executorsRunning, targetExecutors, progress, waitingReason, streaming, 0);
  }

  /**
   * One line for a terminal: {@code stage 1/2, tasks 12/40, executors 3 (target 4)}, followed
   * by {@code , waiting: <reason>} when there is a waiting reason.
   */
  public String describe() {
    String line;
    if (!streaming.isEmpty()) {
      line = streaming + String.format(", executors %d (target %d)", executorsRunning,
          targetExecutors);
    } else if (tasksTotal == 0) {
      return "planning the job";
    } else {
      line = String.format("stage %d/%d, tasks %d/%d, executors %d (target %d)",
          stageIndex, stageCount, tasksDone, tasksTotal, executorsRunning, targetExecutors);
    }
    return waitingReason.isEmpty() ? line : line + ", waiting: " + waitingReason;
  }

  /** This status with {@code reason} as its waiting reason. */
  public JobStatus withWaitingReason(String reason) {
    return new JobStatus(jobName, stageIndex, stageCount, tasksDone, tasksTotal, pendingTasks,
        runningTasks, executorsRunning, targetExecutors, progress, reason, streaming,
        damagedMapOutputs);
  }
}
