package dev.tide.driver.job;

/**
 * A job: turns its arguments into a plan of input splits, a mapper and a reducer. Implementations
 * are named in the job spec ({@code tide.job}) and need a public no-arg constructor; the driver
 * calls {@link #plan} once, in the driver JVM. Nothing is serialized but class names, the
 * splits' bytes and the job's settings.
 */
public interface TideJob {
  JobPlan plan(JobContext context) throws Exception;
}
