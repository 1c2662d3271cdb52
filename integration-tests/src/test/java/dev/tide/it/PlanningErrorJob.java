package dev.tide.it;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.TideJob;

/**
 * A user job whose planning hits what a library clash gives (a user jar's Guava newer than
 * Hadoop's, without {@code tide.user.classpath.first}): a {@link NoSuchMethodError}, an
 * {@link Error}, not an exception. The application must fail at once, with the cause.
 */
public final class PlanningErrorJob implements TideJob {
  static final String MISSING = "'com.google.common.base.Stopwatch"
      + " com.google.common.base.Stopwatch.createStarted(com.google.common.base.Ticker)'";

  @Override
  public JobPlan plan(JobContext context) {
    throw new NoSuchMethodError(MISSING);
  }
}
