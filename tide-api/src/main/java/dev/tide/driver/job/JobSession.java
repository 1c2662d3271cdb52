package dev.tide.driver.job;

/**
 * The driver's side of a running job, for jobs that run more than one plan (iterations): each
 * {@link #run} executes one plan on the application's executors and returns when it succeeded.
 * Executors, and the blocks of cached datasets they hold, stay between plans.
 */
public interface JobSession {
  JobContext context();

  /**
   * Runs {@code plan} to its end, its output committed.
   *
   * @throws JobFailedException if the plan failed, with why
   */
  void run(JobPlan plan) throws JobFailedException, InterruptedException;

  /** A plan of the job failed; the message says why. */
  final class JobFailedException extends Exception {
    public JobFailedException(String message) {
      super(message);
    }
  }
}
