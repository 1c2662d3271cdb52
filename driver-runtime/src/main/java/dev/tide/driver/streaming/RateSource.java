package dev.tide.driver.streaming;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Synthetic records at the rate {@code tide.streaming.rate.schedule} gives, numbered 0, 1, 2 ...
 * from the stream's start, so that a sink can prove every record was counted exactly once. A
 * batch at time t holds the ids from the last batch's end to the records that arrived by t,
 * split evenly into {@code tide.streaming.rate.splits} ranges ({@link IdRange}). The stream's
 * start is the first batch's time minus one interval; it is kept in every batch's position, so
 * a resubmitted job numbers on from where the last one stopped.
 */
public final class RateSource implements StreamSource {
  /** One map task's ids: {@code [first, first + count)}, each costing {@code costMicros}. */
  public record IdRange(long first, long count, long costMicros) {
    public byte[] encode() {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeLong(first);
        out.writeLong(count);
        out.writeLong(costMicros);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    public static IdRange decode(byte[] payload) throws IOException {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
      return new IdRange(in.readLong(), in.readLong(), in.readLong());
    }
  }

  private final RateSchedule schedule;
  private final long intervalMillis;
  private final long costMicros;
  private final int splits;
  private long startMillis = Long.MIN_VALUE;
  private long nextId;

  public RateSource(Configuration conf) {
    this.schedule = RateSchedule.parse(TideOptions.STREAMING_RATE_SCHEDULE.get(conf));
    this.intervalMillis = TideOptions.STREAMING_BATCH_INTERVAL.get(conf).toMillis();
    this.costMicros = TideOptions.STREAMING_RATE_COST.get(conf).toNanos() / 1000;
    this.splits = TideOptions.STREAMING_RATE_SPLITS.get(conf);
  }

  @Override
  public void restore(List<Batch> logged) throws IOException {
    if (!logged.isEmpty()) {
      DataInputStream in = new DataInputStream(
          new ByteArrayInputStream(logged.get(logged.size() - 1).position()));
      startMillis = in.readLong();
      nextId = in.readLong();
    }
  }

  @Override
  public Batch take(long batchTimeMillis) {
    if (startMillis == Long.MIN_VALUE) {
      startMillis = batchTimeMillis - intervalMillis;
    }
    long end = Math.max(nextId, schedule.recordsUntil(batchTimeMillis - startMillis));
    long count = end - nextId;
    List<InputSplit> ranges = new ArrayList<>();
    for (int i = 0; i < splits; i++) {
      long from = nextId + count * i / splits;
      long to = nextId + count * (i + 1) / splits;
      if (to > from) {
        ranges.add(new InputSplit(new IdRange(from, to - from, costMicros).encode(), List.of()));
      }
    }
    nextId = end;
    ByteArrayOutputStream position = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(position)) {
      out.writeLong(startMillis);
      out.writeLong(end);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Batch(batchTimeMillis, ranges, count, position.toByteArray());
  }

  @Override
  public long waitingRecords(long timeMillis) {
    return startMillis == Long.MIN_VALUE ? -1
        : Math.max(0, schedule.recordsUntil(timeMillis - startMillis) - nextId);
  }
}
