package dev.tide.driver.job;

/**
 * A micro-batch streaming job: every {@code tide.streaming.batchInterval} the driver takes what
 * its {@link StreamSource} received in that interval and runs {@link #batchPlan} over it, one
 * batch at a time (a batch not started at its time waits: scheduling delay). Each batch's output
 * is committed atomically as {@code <output>/batch-<time>/}, so a rerun batch never leaves
 * duplicates. The stream ends when the job is killed, after {@code tide.streaming.stopAfter},
 * or gracefully ({@code bin/tide stop <appId>}: the running batch finishes first).
 */
public interface StreamingJob extends TideJob {
  /**
   * Checks, on the client before submission, that the source can be read (an input directory
   * exists ...): may access the FileSystem, should be quick. The default checks nothing.
   */
  default void checkSource(JobContext context) throws java.io.IOException {}

  /** The job's source, new for each run of the job. */
  StreamSource source(JobContext context) throws Exception;

  /** The directory the batches' outputs go under (a Hadoop FileSystem URI). */
  String outputPath(JobContext context);

  /**
   * The plan of one batch over {@code batch}'s splits (never empty), writing to
   * {@code batchOutput} (pass it to {@link JobPlan.Builder#output}).
   */
  JobPlan batchPlan(JobContext context, StreamSource.Batch batch, String batchOutput)
      throws Exception;

  /** Streaming jobs are run batch by batch by the driver, never through this method. */
  @Override
  default void run(JobSession session) {
    throw new UnsupportedOperationException(getClass().getName()
        + " is a streaming job; the driver runs its batches");
  }
}
