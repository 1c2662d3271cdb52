package dev.tide.driver.job;

import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * What a job sees when it plans, and what a mapper or reducer sees when it is configured:
 * the job's settings and arguments, in a task the bytes its stage was given in the plan
 * ({@link JobPlan.Builder#input(String, JobPlan.Dataset, Class, byte[])}; empty otherwise), e.g.
 * an iteration's current model, and the task attempt it runs in ({@link #task()}).
 *
 * @param task the task attempt, in a mapper or reducer; null while the job plans (in the driver)
 */
public record JobContext(Configuration conf, List<String> args, byte[] spec, TaskAttempt task) {
  public JobContext {
    args = List.copyOf(args);
    spec = spec.clone();
  }

  /** A context outside any task attempt. */
  public JobContext(Configuration conf, List<String> args, byte[] spec) {
    this(conf, args, spec, null);
  }

  public JobContext(Configuration conf, List<String> args) {
    this(conf, args, new byte[0]);
  }

  @Override
  public byte[] spec() {
    return spec.clone();
  }
}
