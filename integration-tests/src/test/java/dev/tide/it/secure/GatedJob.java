package dev.tide.it.secure;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.testing.Await;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code GatedJob <output> <gate>}: two map-reduce plans with a wait in the driver between them,
 * so that a test can look at a running application's map output in {@code tide_shuffle} and
 * then see the application fetch through the service again. Each plan sums the numbers
 * {@code 0 .. SPLITS*PER_SPLIT-1} by their residue modulo {@link #KEYS} and writes
 * {@code r<k><TAB>sum} lines, the first under {@code <output>/before}, the second under
 * {@code <output>/after}. Between them the driver waits (at most {@link #GATE_WAIT}) for the
 * file {@code <gate>} to exist.
 */
public final class GatedJob implements TideJob {
  static final int SPLITS = 3;
  static final int PER_SPLIT = 1000;
  static final int KEYS = 4;
  static final Duration GATE_WAIT = Duration.ofSeconds(180);

  /** What each plan writes: {@code r<k>} -> the sum of the numbers with residue k. */
  static Map<String, Long> expected() {
    Map<String, Long> sums = new TreeMap<>();
    for (long n = 0; n < (long) SPLITS * PER_SPLIT; n++) {
      sums.merge("r" + n % KEYS, n, Long::sum);
    }
    return sums;
  }

  @Override
  public void run(JobSession session) throws Exception {
    String output = session.context().args().get(0);
    Path gate = new Path(session.context().args().get(1));
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < SPLITS; i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(4).putInt(i).array(), List.of()));
    }
    session.run(JobPlan.mapReduce("before the gate", splits, NumberMapper.class,
        SumReducer.class, 2, output + "/before"));
    FileSystem fs = gate.getFileSystem(session.context().conf());
    Await.until(GATE_WAIT, "the gate file " + gate, () -> fs.exists(gate));
    session.run(JobPlan.mapReduce("after the gate", splits, NumberMapper.class,
        SumReducer.class, 2, output + "/after"));
  }

  /** Emits split s's numbers, keyed by residue. */
  public static final class NumberMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      int s = ByteBuffer.wrap(split.payload()).getInt();
      for (long n = (long) s * PER_SPLIT; n < (long) (s + 1) * PER_SPLIT; n++) {
        output.emit(("r" + n % KEYS).getBytes(StandardCharsets.UTF_8),
            ByteBuffer.allocate(8).putLong(n).array());
      }
    }
  }

  /** Writes {@code key<TAB>sum} per key (records come sorted by key). */
  public static final class SumReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      try (Writer out = new java.io.OutputStreamWriter(output.open(), StandardCharsets.UTF_8)) {
        byte[] key = null;
        long sum = 0;
        while (records.hasNext()) {
          KeyValue record = records.next();
          if (key != null && !Arrays.equals(key, record.key())) {
            out.write(new String(key, StandardCharsets.UTF_8) + "\t" + sum + "\n");
            sum = 0;
          }
          key = record.key();
          sum += ByteBuffer.wrap(record.value()).getLong();
        }
        if (key != null) {
          out.write(new String(key, StandardCharsets.UTF_8) + "\t" + sum + "\n");
        }
      }
    }
  }
}
