package dev.tide.driver.job;

import java.time.Duration;

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

  /**
   * Announces work ahead: a plan needing {@code executors} executors will be run within
   * {@code within} from now. The batch allocation policy's lookahead
   * ({@code tide.dynamicAllocation.lookahead}) treats it as a stage that becomes runnable then:
   * it asks for those executors one measured start latency before, keeps idle ones it would
   * otherwise release for it, and drops the announcement once new tasks are submitted (the work
   * came) or when as long again as {@code within} has passed without any (it did not). Always
   * bounded by {@code tide.dynamicAllocation.maxExecutors}. A hint: a session that allocates
   * nothing (a local runner) ignores it. Returns at once; may be called from the job's thread at
   * any time, between plans too. See docs/job-api.md "Announcing work ahead".
   *
   * @param executors executors the work can use at once (at least 1)
   * @param within how long from now it will be submitted (0: now)
   * @throws IllegalArgumentException if {@code executors < 1} or {@code within} is negative
   */
  default void expect(int executors, Duration within) {
    checkExpectation(executors, within);
  }

  /** The checks of {@link #expect}'s arguments, for every implementation. */
  static void checkExpectation(int executors, Duration within) {
    if (executors < 1) {
      throw new IllegalArgumentException("expect: executors must be at least 1, got "
          + executors);
    }
    if (within == null || within.isNegative()) {
      throw new IllegalArgumentException("expect: within must be a duration >= 0, got "
          + within);
    }
  }

  /** A plan of the job failed; the message says why. */
  final class JobFailedException extends Exception {
    public JobFailedException(String message) {
      super(message);
    }
  }
}
