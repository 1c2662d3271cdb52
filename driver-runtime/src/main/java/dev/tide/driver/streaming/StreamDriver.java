package dev.tide.driver.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession.JobFailedException;
import dev.tide.time.Clock;
import java.time.Duration;

/**
 * What the {@link StreamRunner} needs of the driver: the clock and its pause, the allocation
 * policy's hooks around each batch, and running one batch's plan. Called from the job thread;
 * the driver's methods block until its event loop handled them.
 */
public interface StreamDriver {
  /** What a batch's plan measured. */
  record PlanMeasure(double taskSeconds, int executorsAtStart, boolean executorsChanged) {
    public static final PlanMeasure NONE = new PlanMeasure(0, 0, false);
  }

  JobContext context();

  /** Milliseconds on the driver's clock. */
  long now();

  /**
   * Waits {@code duration} on the clock of {@link #now()}: the seam where the runner waits for a
   * batch's time, so that a driver with a manual clock moves it instead of sleeping. The
   * driver's own clock is the system's: it sleeps.
   */
  default void pause(Duration duration) throws InterruptedException {
    Clock.system().pause(duration);
  }

  /**
   * A batch is about to be submitted: the streaming allocation policy (if on) sizes the
   * executors for it; the event log and the status show it.
   *
   * @param waitingBatches batches due now, this one included
   * @param waitingRecords their records, or -1 when unknown
   */
  void batchSubmitted(long batchTime, long records, int waitingBatches, long waitingRecords)
      throws InterruptedException;

  /** The batch started (its scheduling delay is known). */
  void batchStarted(long batchTime, long schedulingDelayMillis) throws InterruptedException;

  /** Runs a batch's plan to its end, its output committed. */
  PlanMeasure runPlan(JobPlan plan) throws JobFailedException, InterruptedException;

  /** The batch ended: its output is committed, its input is done. */
  void batchCompleted(CompletedBatch batch) throws InterruptedException;

  /** True once someone asked the stream to stop after its running batch. */
  boolean stopRequested();
}
