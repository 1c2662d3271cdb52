package dev.tide.driver.job;

import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * What a job sees when it plans, and what a mapper or reducer sees when it is configured:
 * the job's settings and arguments, and in a task the bytes its stage was given in the plan
 * ({@link JobPlan.Builder#input(String, JobPlan.Dataset, Class, byte[])}; empty otherwise), e.g.
 * an iteration's current model.
 */
public record JobContext(Configuration conf, List<String> args, byte[] spec) {
  public JobContext {
    args = List.copyOf(args);
    spec = spec.clone();
  }

  public JobContext(Configuration conf, List<String> args) {
    this(conf, args, new byte[0]);
  }

  @Override
  public byte[] spec() {
    return spec.clone();
  }
}
