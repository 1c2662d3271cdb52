package dev.tide.driver.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The synthetic source's batches: ids numbered once, split evenly, resumed after a restart. */
class RateSourceTest {
  private final Configuration conf = new Configuration(false);

  @BeforeEach
  void settings() {
    conf.set("tide.streaming.rate.schedule", "1000@0s,3000@10s");
    conf.set("tide.streaming.batchInterval", "2s");
    conf.set("tide.streaming.rate.cost", "250us");
    conf.setInt("tide.streaming.rate.splits", 4);
  }

  private static List<RateSource.IdRange> ranges(StreamSource.Batch batch) throws IOException {
    List<RateSource.IdRange> ranges = new ArrayList<>();
    for (InputSplit split : batch.splits()) {
      ranges.add(RateSource.IdRange.decode(split.payload()));
    }
    return ranges;
  }

  @Test
  void theFirstBatchHoldsOneIntervalOfRecordsSplitEvenly() throws IOException {
    RateSource source = new RateSource(conf);
    source.restore(List.of());

    StreamSource.Batch batch = source.take(100_000);

    assertEquals(100_000, batch.timeMillis());
    assertEquals(2_000, batch.records(), "the stream started one interval before");
    assertEquals(List.of(new RateSource.IdRange(0, 500, 250), new RateSource.IdRange(500, 500,
        250), new RateSource.IdRange(1000, 500, 250), new RateSource.IdRange(1500, 500, 250)),
        ranges(batch));
  }

  @Test
  void batchesNumberOnWhereTheLastEndedAndFollowTheSchedule() throws IOException {
    RateSource source = new RateSource(conf);
    source.restore(List.of());
    long next = 0;
    for (long t = 2_000; t <= 16_000; t += 2_000) {
      StreamSource.Batch batch = source.take(t);
      List<RateSource.IdRange> ranges = ranges(batch);
      assertEquals(next, ranges.get(0).first(), "batch at " + t);
      for (RateSource.IdRange r : ranges) {
        assertEquals(next, r.first(), "contiguous");
        next += r.count();
      }
    }
    // 10 s at 1000/s, then 6 s at 3000/s.
    assertEquals(10_000 + 18_000, next);
  }

  @Test
  void fewerRecordsThanSplitsMakeOnlyNonEmptyRanges() throws IOException {
    conf.set("tide.streaming.rate.schedule", "1@0s");
    conf.set("tide.streaming.batchInterval", "3s");
    RateSource source = new RateSource(conf);
    source.restore(List.of());

    StreamSource.Batch batch = source.take(3_000);

    assertEquals(3, batch.records());
    assertEquals(3, batch.splits().size());
    assertEquals(0, source.take(3_000).records(), "a batch at the same time is empty");
  }

  @Test
  void aRestartedSourceContinuesFromTheLastLoggedBatch() throws IOException {
    RateSource first = new RateSource(conf);
    first.restore(List.of());
    List<StreamSource.Batch> logged = new ArrayList<>();
    for (long t = 2_000; t <= 6_000; t += 2_000) {
      logged.add(first.take(t));
    }
    StreamSource.Batch expected = first.take(8_000);

    RateSource restarted = new RateSource(conf);
    restarted.restore(logged);
    StreamSource.Batch again = restarted.take(8_000);

    assertEquals(expected.records(), again.records());
    assertEquals(ranges(expected), ranges(again));
  }

  @Test
  void waitingRecordsAreThoseArrivedAndNotTaken() {
    RateSource source = new RateSource(conf);
    assertEquals(-1, source.waitingRecords(5_000), "unknown before the stream started");
    source.take(2_000);
    assertEquals(0, source.waitingRecords(2_000));
    assertEquals(1_500, source.waitingRecords(3_500));
  }
}
