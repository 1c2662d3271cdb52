package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.StreamSource;
import dev.tide.driver.job.StreamingJob;
import dev.tide.driver.streaming.RateSource;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * {@code stream-rate <output>}: a streaming job over the synthetic {@link RateSource}
 * ({@code tide.streaming.rate.*}). Each map task spends the per-record cost on every id of its
 * range and emits the range; the one reducer writes the batch's ids as merged ranges, one
 * {@code first<TAB>endExclusive} line each, to {@code <output>/batch-<time>/part-r-00000}: the
 * ranges of all batches together must cover 0, 1, 2 ... exactly once.
 */
public final class StreamRateJob implements StreamingJob {
  @Override
  public void checkArguments(JobContext context) {
    if (context.args().size() != 1) {
      throw new IllegalArgumentException("usage: stream-rate <output path>; got "
          + context.args().size() + " arguments " + context.args());
    }
  }

  @Override
  public StreamSource source(JobContext context) {
    return new RateSource(context.conf());
  }

  @Override
  public String outputPath(JobContext context) {
    checkArguments(context);
    return context.args().get(0);
  }

  @Override
  public JobPlan batchPlan(JobContext context, StreamSource.Batch batch, String batchOutput) {
    return JobPlan.mapReduce("stream-rate", batch.splits(), IdMapper.class, RangeReducer.class,
        1, batchOutput);
  }

  /**
   * Processes each id of its range at the configured cost (on the CPU, or asleep with
   * {@code tide.streaming.rate.spin=false}); emits (first id, ids processed).
   */
  public static final class IdMapper extends ConfiguredMapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      RateSource.IdRange range = RateSource.IdRange.decode(split.payload());
      boolean spin = TideOptions.STREAMING_RATE_SPIN.get(context.conf());
      long processed = 0;
      long deadline = System.nanoTime();
      if (!spin) {
        TimeUnit.MICROSECONDS.sleep(range.costMicros() * range.count());
      }
      for (long id = range.first(); id < range.first() + range.count(); id++) {
        deadline += range.costMicros() * 1000;
        while (spin && System.nanoTime() - deadline < 0) {
          Thread.onSpinWait(); // the record's CPU cost
        }
        processed++;
      }
      output.emit(ByteBuffer.allocate(8).putLong(range.first()).array(),
          ByteBuffer.allocate(8).putLong(processed).array());
    }
  }

  /** Merges the batch's (first, count) ranges, which arrive sorted by first id. */
  public static final class RangeReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      try (Writer out = new BufferedWriter(
          new OutputStreamWriter(output.open(), StandardCharsets.UTF_8))) {
        long first = -1;
        long end = -1;
        while (records.hasNext()) {
          KeyValue r = records.next();
          long from = ByteBuffer.wrap(r.key()).getLong();
          long to = from + ByteBuffer.wrap(r.value()).getLong();
          if (from != end) {
            if (first >= 0) {
              out.write(first + "\t" + end + "\n");
            }
            first = from;
          }
          end = to;
        }
        if (first >= 0) {
          out.write(first + "\t" + end + "\n");
        }
      }
    }
  }
}
