package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.TideJob;
import java.util.List;

/**
 * A user job whose map task calls {@code System.exit(0)}, as a careless library might: the job
 * must fail naming the task and the exit, without blaming the node its executor ran on.
 */
public final class ExitingJob implements TideJob {
  @Override
  public JobPlan plan(JobContext context) {
    return JobPlan.mapReduce("exiting", List.of(new InputSplit(new byte[0], List.of())),
        ExitingMapper.class, dev.tide.driver.jobs.SleepJob.SleepReducer.class, 1, "");
  }

  /** Ends its JVM. */
  public static final class ExitingMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) {
      System.exit(0);
    }
  }
}
