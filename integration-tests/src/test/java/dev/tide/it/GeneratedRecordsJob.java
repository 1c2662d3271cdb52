package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A user job that makes big shuffles out of nothing: {@code <maps> <recordsPerMap> <output>}.
 * Map m emits {@code recordsPerMap} records of a 16-byte random key and a 48-byte random value
 * from seed m; one reducer receives them all and streams: it counts them, checks they arrive in
 * key order, keeps an order-independent checksum, and writes {@code records N checksum C sorted
 * S}. {@link #expected} computes the same line independently. With {@code keep} as a fourth
 * argument the reducer holds every record in memory (to show what a reducer that does not
 * stream gets).
 */
public final class GeneratedRecordsJob implements TideJob {
  static final int KEY_BYTES = 16;
  static final int VALUE_BYTES = 48;

  @Override
  public JobPlan plan(JobContext context) {
    List<String> args = context.args();
    int maps = Integer.parseInt(args.get(0));
    long perMap = Long.parseLong(args.get(1));
    boolean keep = args.size() > 3 && args.get(3).equals("keep");
    List<InputSplit> splits = new java.util.ArrayList<>();
    for (int m = 0; m < maps; m++) {
      splits.add(new InputSplit(ByteBuffer.allocate(16).putLong(m).putLong(perMap).array(),
          List.of()));
    }
    return JobPlan.mapReduce("generated", splits, GeneratingMapper.class,
        keep ? KeepingReducer.class : StreamingReducer.class, 1, args.get(2));
  }

  /** One record's contribution to the checksum (order-independent: summed). */
  static long hash(byte[] key, byte[] value) {
    return Arrays.hashCode(key) * 31L + Arrays.hashCode(value);
  }

  /** The line the reducer must write for this job. */
  static String expected(int maps, long perMap) {
    long checksum = 0;
    byte[] key = new byte[KEY_BYTES];
    byte[] value = new byte[VALUE_BYTES];
    for (int m = 0; m < maps; m++) {
      SplittableRandom random = new SplittableRandom(m);
      for (long i = 0; i < perMap; i++) {
        fill(random, key);
        fill(random, value);
        checksum += hash(key, value);
      }
    }
    return "records " + (maps * perMap) + " checksum " + checksum + " sorted true\n";
  }

  private static void fill(SplittableRandom random, byte[] bytes) {
    for (int i = 0; i < bytes.length; i += 8) {
      long v = random.nextLong();
      for (int j = 0; j < 8 && i + j < bytes.length; j++) {
        bytes[i + j] = (byte) (v >>> (8 * j));
      }
    }
  }

  /** Emits the split's records. */
  public static final class GeneratingMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws IOException {
      ByteBuffer payload = ByteBuffer.wrap(split.payload());
      SplittableRandom random = new SplittableRandom(payload.getLong());
      long records = payload.getLong();
      for (long i = 0; i < records; i++) {
        byte[] key = new byte[KEY_BYTES];
        byte[] value = new byte[VALUE_BYTES];
        fill(random, key);
        fill(random, value);
        output.emit(key, value);
      }
    }
  }

  /** Counts, checks the order, sums the hashes; holds one record at a time. */
  public static final class StreamingReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws IOException {
      long count = 0;
      long checksum = 0;
      boolean sorted = true;
      byte[] previous = null;
      while (records.hasNext()) {
        KeyValue r = records.next();
        if (previous != null && Arrays.compareUnsigned(previous, r.key()) > 0) {
          sorted = false;
        }
        previous = r.key();
        count++;
        checksum += hash(r.key(), r.value());
      }
      try (OutputStream out = output.open()) {
        out.write(("records " + count + " checksum " + checksum + " sorted " + sorted + "\n")
            .getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** Keeps every record in memory: a reducer written without regard for its heap. */
  public static final class KeepingReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws IOException {
      List<KeyValue> all = new java.util.ArrayList<>();
      records.forEachRemaining(all::add);
      try (OutputStream out = output.open()) {
        out.write(("records " + all.size() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }
}
