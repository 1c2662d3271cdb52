package dev.tide.driver.alloc;

/**
 * Sizes a streaming job's executors, batch by batch ({@code tide.streaming.dynamicAllocation.*}).
 * Pure logic: the driver tells it each completed batch, and asks it just before each batch is
 * submitted; it answers with a target and how many running executors to remove now. The driver
 * picks which (idle ones and those without cached data first), marks them pending-to-remove (no
 * new tasks) and kills them asynchronously. One thread calls it.
 */
public interface StreamingAllocationPolicy {

  /**
   * A batch that ended, in batch order.
   *
   * @param batchTimeMillis the end of the interval whose records it held (its scheduled start)
   * @param processingMillis from its start to its end
   * @param schedulingDelayMillis from its scheduled time to its start
   * @param delayed it took longer than the interval, or it had to wait for an earlier batch
   * @param taskSeconds the run time of all its task attempts, summed (busy slot-seconds)
   * @param executorsAtStart executors able to take tasks when it started
   * @param executorsChanged executors were added or removed while it ran
   * @param tasks the task count of its widest stage, 0 when unknown: with it a policy can tell
   *     how many waves of tasks a number of executors runs (more executors than tasks / slots
   *     never help, and between those counts only the wave count matters)
   */
  record CompletedBatch(long batchTimeMillis, long records, long processingMillis,
      long schedulingDelayMillis, boolean delayed, double taskSeconds, int executorsAtStart,
      boolean executorsChanged, int tasks) {

    /** A batch whose task count is not known. */
    public CompletedBatch(long batchTimeMillis, long records, long processingMillis,
        long schedulingDelayMillis, boolean delayed, double taskSeconds, int executorsAtStart,
        boolean executorsChanged) {
      this(batchTimeMillis, records, processingMillis, schedulingDelayMillis, delayed,
          taskSeconds, executorsAtStart, executorsChanged, 0);
    }
  }

  /**
   * The state just before a batch is submitted.
   *
   * @param waitingBatches batches due now, this one included (1 when the job keeps up)
   * @param waitingRecords records of those batches, or -1 when the source cannot tell
   * @param executors executors able to take tasks (registered, not pending removal)
   * @param starting executors asked for and not yet registered
   * @param target the target the cluster was last asked for
   */
  record BeforeBatch(long nowMillis, long batchTimeMillis, int waitingBatches,
      long waitingRecords, int executors, int starting, int target) {}

  /**
   * @param target executors to ask the cluster for (within [min, max])
   * @param remove running executors to remove now (0 or more; already subtracted in target)
   * @param reason why, for the log and the event log
   */
  record Decision(int target, int remove, String reason) {}

  void batchCompleted(CompletedBatch batch);

  Decision beforeBatch(BeforeBatch state);

  /** The policy the settings name. */
  static StreamingAllocationPolicy create(StreamingSettings settings) {
    return switch (settings.policy()) {
      case SEED -> new SeedStreamingPolicy(settings);
      case PROPORTIONAL -> new ProportionalStreamingPolicy(settings);
    };
  }
}
