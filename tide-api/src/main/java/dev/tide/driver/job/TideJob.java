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

  /**
   * Checks the job's input and output paths, as MapReduce's client checks its input paths and
   * output spec ({@code FileOutputFormat.checkOutputSpecs}): the client calls it after
   * {@link #checkArguments} and before it submits anything, with the job's settings (so
   * {@code FileSystem.get(context.conf())} is the cluster's default FileSystem), so that a
   * missing input or an output that exists costs no application (exit code 2, the message
   * printed). Look at metadata only, quickly; {@link JobPaths} has the built-in jobs' checks.
   * Throw an {@link java.io.IOException} (or an {@link IllegalArgumentException}) naming the path
   * and what is wrong; the default checks nothing. The ApplicationMaster does not call it: a
   * path that changes between the check and the job still fails the job there.
   */
  default void checkPaths(JobContext context) throws java.io.IOException {}

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
