package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.TideJob;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A user job that announces its one plan ahead: {@code <splits> <leadMs> <output>} calls
 * {@code session.expect(splits, leadMs)}, waits {@code leadMs} (the driver's own idea of what
 * comes next, such as a user about to send a query), then runs one plan of {@code splits} map
 * tasks summing {@code 0 .. splits*1000-1} into {@code <output>} ({@link CachedPauseJob}'s
 * mappers and reducer, without the cache).
 */
public final class ExpectingJob implements TideJob {
  @Override
  public void run(JobSession session) throws Exception {
    List<String> args = session.context().args();
    int splitCount = Integer.parseInt(args.get(0));
    long lead = Long.parseLong(args.get(1));
    session.expect(splitCount, Duration.ofMillis(lead));
    Thread.sleep(lead); // the job's own lead time before its burst (a user about to query), not a wait
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < splitCount; i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(4).putInt(i).array(), List.of()));
    }
    JobPlan.Dataset numbers = JobPlan.Dataset.of("numbers", splits,
        CachedPauseJob.NumberMapper.class);
    JobPlan.Builder plan = JobPlan.builder("announced");
    JobPlan.Stage read = plan.input("read", numbers, CachedPauseJob.SumMapper.class, new byte[0]);
    session.run(plan.output(plan.shuffle("total", 1, CachedPauseJob.TotalReducer.class, read),
        args.get(2)));
  }
}
