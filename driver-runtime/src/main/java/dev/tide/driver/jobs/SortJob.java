package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.input.FileRangeSplits;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code sort <input> <output>}: sorts the fixed-size records of the files under {@code input}
 * (TeraGen's format by default: 100-byte records whose first 10 bytes are the key; see
 * {@code tide.sort.recordBytes} / {@code tide.sort.keyBytes}) by key, as unsigned bytes, into
 * {@code output/part-r-NNNNN} files that together are in total order: the plan samples
 * {@code tide.sort.samples} keys from up to 10 input splits (as TeraSort does), chooses
 * {@code reducers - 1} split points at even quantiles, and range-partitions the records by them,
 * so part {@code i}'s keys all sort before part {@code i+1}'s. Records of equal keys keep no
 * particular order. Check a result with {@code sortvalidate}.
 */
public final class SortJob implements TideJob {
  static final int SAMPLED_SPLITS = 10;

  @Override
  public void checkArguments(JobContext context) {
    if (context.args().size() != 2) {
      throw new IllegalArgumentException("usage: sort <input path> <output path>");
    }
  }

  @Override
  public void checkPaths(JobContext context) throws IOException {
    JobPaths.requireInput(context.conf(), context.args().get(0));
    JobPaths.requireNewOutput(context.conf(), context.args().get(1));
  }

  @Override
  public JobPlan plan(JobContext context) throws Exception {
    checkArguments(context);
    List<String> args = context.args();
    Configuration conf = context.conf();
    int recordBytes = TideOptions.SORT_RECORD_BYTES.get(conf);
    int keyBytes = TideOptions.SORT_KEY_BYTES.get(conf);
    if (keyBytes > recordBytes) {
      throw new IllegalArgumentException("tide.sort.keyBytes (" + keyBytes + ") is more than"
          + " tide.sort.recordBytes (" + recordBytes + ")");
    }
    List<InputSplit> splits = FileRangeSplits.plan(conf, args.get(0), 0);
    int reducers = TideOptions.SORT_REDUCERS.get(conf);
    if (reducers == 0) {
      reducers = splits.size();
    }
    List<byte[]> points = splitPoints(conf, splits, reducers, recordBytes, keyBytes);
    JobPlan.Builder plan = JobPlan.builder("sort");
    JobPlan.Stage records = plan.input("read", splits, SortMapper.class);
    return plan.output(plan.shuffle("sort", reducers, SortReducer.class,
        JobPlan.Partitioning.range(points), records), args.get(1));
  }

  /** {@code reducers - 1} keys at even quantiles of a sample of the input's keys. */
  static List<byte[]> splitPoints(Configuration conf, List<InputSplit> splits, int reducers,
      int recordBytes, int keyBytes) throws java.io.IOException {
    int samples = TideOptions.SORT_SAMPLES.get(conf);
    int sampled = Math.min(SAMPLED_SPLITS, splits.size());
    long perSplit = Math.max(1, samples / sampled);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < sampled; i++) {
      InputSplit split = splits.get((int) ((long) i * splits.size() / sampled));
      FixedRecords.forEach(conf, FileRangeSplits.decode(split.payload()), recordBytes, perSplit,
          record -> keys.add(Arrays.copyOf(record, keyBytes)));
    }
    keys.sort(Arrays::compareUnsigned);
    List<byte[]> points = new ArrayList<>();
    for (int r = 1; r < reducers && !keys.isEmpty(); r++) {
      points.add(keys.get((int) ((long) r * keys.size() / reducers)));
    }
    return points;
  }

  /** Emits each record of its split as (key, rest of the record). */
  public static final class SortMapper extends ConfiguredMapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      int recordBytes = TideOptions.SORT_RECORD_BYTES.get(context.conf());
      int keyBytes = TideOptions.SORT_KEY_BYTES.get(context.conf());
      FixedRecords.forEach(context.conf(), FileRangeSplits.decode(split.payload()), recordBytes,
          Long.MAX_VALUE, record -> output.emit(Arrays.copyOf(record, keyBytes),
              Arrays.copyOfRange(record, keyBytes, recordBytes)));
    }
  }

  /** Writes its key range's records, in key order, as they were read (key, then the rest). */
  public static final class SortReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      try (OutputStream out = new BufferedOutputStream(output.open(), 1 << 16)) {
        while (records.hasNext()) {
          KeyValue record = records.next();
          out.write(record.key());
          out.write(record.value());
        }
      }
    }
  }
}
