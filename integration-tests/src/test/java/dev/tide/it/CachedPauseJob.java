package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.RecordMapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A user job of three plans over one cached dataset, with pauses in its driver code between
 * them: {@code <splits> <pause1Ms> <pause2Ms> <output>}. The dataset is the numbers
 * {@code 0 .. splits*1000-1}, 1000 per split; each plan sums them and writes the sum to
 * {@code <output>-N}. So a test can watch what the allocation policy does with executors that
 * hold cached blocks while the job does nothing.
 */
public final class CachedPauseJob implements TideJob {
  static final int PER_SPLIT = 1000;

  static long expectedSum(int splits) {
    long n = (long) splits * PER_SPLIT;
    return n * (n - 1) / 2;
  }

  @Override
  public void run(JobSession session) throws Exception {
    List<String> args = session.context().args();
    int splitCount = Integer.parseInt(args.get(0));
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < splitCount; i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(4).putInt(i).array(), List.of()));
    }
    JobPlan.Dataset numbers = JobPlan.Dataset.of("numbers", splits, NumberMapper.class).cache();
    long[] pauses = {Long.parseLong(args.get(1)), Long.parseLong(args.get(2)), 0};
    for (int p = 1; p <= 3; p++) {
      JobPlan.Builder plan = JobPlan.builder("sum " + p);
      JobPlan.Stage read = plan.input("read", numbers, SumMapper.class, new byte[0]);
      session.run(plan.output(plan.shuffle("total", 1, TotalReducer.class, read),
          args.get(3) + "-" + p));
      Thread.sleep(pauses[p - 1]); // the job's own idea of a pause: executors sit idle
    }
  }

  /** Emits split s's numbers. */
  public static final class NumberMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      int s = ByteBuffer.wrap(split.payload()).getInt();
      for (long n = (long) s * PER_SPLIT; n < (long) (s + 1) * PER_SPLIT; n++) {
        output.emit(new byte[0], ByteBuffer.allocate(8).putLong(n).array());
      }
    }
  }

  /** Sums its block's numbers and emits one ("sum", partial sum) at the end. */
  public static final class SumMapper implements RecordMapper {
    private long sum;

    @Override
    public void map(KeyValue record, Mapper.MapOutput output) {
      sum += ByteBuffer.wrap(record.value()).getLong();
    }

    @Override
    public void finish(Mapper.MapOutput output) throws Exception {
      output.emit("sum".getBytes(StandardCharsets.UTF_8),
          ByteBuffer.allocate(8).putLong(sum).array());
    }
  }

  /** Writes the total of the partial sums. */
  public static final class TotalReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      long total = 0;
      while (records.hasNext()) {
        total += ByteBuffer.wrap(records.next().value()).getLong();
      }
      try (OutputStream out = output.open()) {
        out.write((total + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }
}
