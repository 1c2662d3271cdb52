package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.TideJob;
import java.util.List;

/** A user job whose map tasks always throw: the job must fail with that message. */
public final class FailingJob implements TideJob {
  @Override
  public JobPlan plan(JobContext context) {
    return JobPlan.mapReduce("failing", List.of(new InputSplit(new byte[0], List.of())),
        ThrowingMapper.class, dev.tide.driver.jobs.SleepJob.SleepReducer.class, 1, "");
  }

  /** Always throws. */
  public static final class ThrowingMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) {
      throw new IllegalStateException("deliberate failure in a user mapper");
    }
  }
}
