package dev.tide.driver.job;

/**
 * A job. Implementations are named in the job spec ({@code tide.job}) and need a public no-arg
 * constructor; the driver calls {@link #run} once, in the driver JVM. Most jobs are one plan and
 * implement {@link #plan}; a job of several plans (an iterative algorithm) overrides {@link #run}
 * and runs them in turn through the session. Nothing is serialized but class names, the splits'
 * and stages' bytes and the job's settings.
 */
public interface TideJob {
  /**
   * Checks the job's arguments without planning (no FileSystem access, nothing slow): the
   * client calls it before it submits anything, so a bad argument costs no application. Throw an
   * {@link IllegalArgumentException} with the usage; the default accepts anything.
   */
  default void checkArguments(JobContext context) {}

  /** The job's one plan; jobs that override {@link #run} need not implement it. */
  default JobPlan plan(JobContext context) throws Exception {
    throw new UnsupportedOperationException(getClass().getName()
        + " implements neither plan(JobContext) nor run(JobSession)");
  }

  /** Runs the job; the default runs {@link #plan}'s plan. */
  default void run(JobSession session) throws Exception {
    session.run(plan(session.context()));
  }
}
