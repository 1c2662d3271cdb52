package dev.tide.it.placement;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * {@code PreferredNodeJob <node> <maps> <mapMillis>}: maps whose splits all prefer one node (a
 * YARN node name), each sleeping a while, and one reduce that only drains its input. For
 * locality placement tests.
 */
public final class PreferredNodeJob implements TideJob {
  @Override
  public JobPlan plan(JobContext context) {
    List<String> args = context.args();
    if (args.size() != 3) {
      throw new IllegalArgumentException("usage: PreferredNodeJob <node> <maps> <mapMillis>");
    }
    String node = args.get(0);
    int maps = Integer.parseInt(args.get(1));
    long millis = Long.parseLong(args.get(2));
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < maps; i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(8).putLong(0, millis).array(),
          List.of(node)));
    }
    return JobPlan.mapReduce("preferred-node", splits, SleepingMapper.class,
        DrainingReducer.class, 1, "");
  }

  /** Sleeps for the split's milliseconds and emits one record. */
  public static final class SleepingMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Thread.sleep(ByteBuffer.wrap(split.payload()).getLong());
      output.emit(new byte[] {1}, new byte[] {2});
    }
  }

  /** Reads every record and writes nothing. */
  public static final class DrainingReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output) {
      while (records.hasNext()) {
        records.next();
      }
    }
  }
}
