package dev.tide.driver.jobs;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.Mapper;

/** A mapper of a built-in job that keeps the context it was configured with. */
abstract class ConfiguredMapper implements Mapper {
  /** Set by {@link #configure}, before {@code map}. */
  protected JobContext context;

  @Override
  public void configure(JobContext context) {
    this.context = context;
  }
}
