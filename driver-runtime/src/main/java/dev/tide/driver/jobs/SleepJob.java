package dev.tide.driver.jobs;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code sleep [-m maps] [-r reduces] [-mt mapMillis] [-rt reduceMillis] [-b shuffleBytesPerMap]
 * [-rd reduceFetchDelayMillis] [-o output]}: a synthetic job, like MapReduce's SleepJob, for
 * elasticity tests and benchmarks. Each map sleeps and then emits {@code -b} bytes spread evenly
 * over the reducers; each reduce waits {@code -rd}, fetches and checks every record, sleeps, and
 * (with {@code -o}) writes one line {@code partition P records N bytes B}.
 */
public final class SleepJob implements TideJob {
  static final int RECORD_BYTES = 1024;

  /** The parsed arguments. */
  record Spec(int maps, int reduces, long mapMillis, long reduceMillis, long bytesPerMap,
      long reduceFetchDelayMillis, String output) {
    int recordsPerMapPerReduce() {
      long perReduce = bytesPerMap / reduces;
      return (int) ((perReduce + RECORD_BYTES - 1) / RECORD_BYTES);
    }

    static Spec parse(List<String> args) {
      int maps = 1;
      int reduces = 1;
      long mapMillis = 100;
      long reduceMillis = 100;
      long bytes = 0;
      long delay = 0;
      String output = "";
      for (int i = 0; i < args.size(); i++) {
        String flag = args.get(i);
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException("sleep: " + flag + " needs a value");
        }
        String value = args.get(++i);
        try {
          switch (flag) {
            case "-m" -> maps = Integer.parseInt(value);
            case "-r" -> reduces = Integer.parseInt(value);
            case "-mt" -> mapMillis = Long.parseLong(value);
            case "-rt" -> reduceMillis = Long.parseLong(value);
            case "-b" -> bytes = Long.parseLong(value);
            case "-rd" -> delay = Long.parseLong(value);
            case "-o" -> output = value;
            default -> throw new IllegalArgumentException("sleep: unknown option " + flag
                + "; usage: sleep [-m maps] [-r reduces] [-mt ms] [-rt ms] [-b bytesPerMap]"
                + " [-rd reduceFetchDelayMs] [-o output]");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("sleep: " + flag + " expects a number, got '"
              + value + "'");
        }
      }
      if (maps < 1 || reduces < 1 || mapMillis < 0 || reduceMillis < 0 || bytes < 0
          || delay < 0) {
        throw new IllegalArgumentException("sleep: counts must be >= 1 and times/bytes >= 0");
      }
      return new Spec(maps, reduces, mapMillis, reduceMillis, bytes, delay, output);
    }

    static Spec of(JobContext context) {
      return parse(context.args());
    }
  }

  @Override
  public void checkArguments(JobContext context) {
    Spec.of(context);
  }

  @Override
  public void checkPaths(JobContext context) throws java.io.IOException {
    JobPaths.requireNewOutput(context.conf(), Spec.of(context).output());
  }

  @Override
  public JobPlan plan(JobContext context) {
    Spec spec = Spec.of(context);
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < spec.maps(); i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(4).putInt(i).array(), List.of()));
    }
    return JobPlan.mapReduce("sleep", splits, SleepMapper.class, SleepReducer.class,
        spec.reduces(), spec.output());
  }

  /** Sleeps, then emits its share of synthetic records to every reducer. */
  public static final class SleepMapper implements Mapper {
    private Spec spec;

    @Override
    public void configure(JobContext context) {
      spec = Spec.of(context);
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      int mapIndex = ByteBuffer.wrap(split.payload()).getInt();
      Thread.sleep(spec.mapMillis());
      SplittableRandom random = new SplittableRandom(mapIndex);
      int perReduce = spec.recordsPerMapPerReduce();
      byte[] value = new byte[RECORD_BYTES - 16];
      for (int r = 0; r < spec.reduces(); r++) {
        for (int k = 0; k < perReduce; k++) {
          random.nextBytes(value);
          output.emit(SleepReducer.keyFor(r, spec.reduces(), mapIndex, k), value.clone());
        }
      }
    }
  }

  /** Waits, fetches and counts the records of its partition, sleeps, and reports. */
  public static final class SleepReducer implements Reducer {
    private Spec spec;

    @Override
    public void configure(JobContext context) {
      spec = Spec.of(context);
    }

    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      Thread.sleep(spec.reduceFetchDelayMillis());
      long count = 0;
      long bytes = 0;
      while (records.hasNext()) {
        KeyValue record = records.next();
        count++;
        bytes += record.key().length + record.value().length;
      }
      long expected = (long) spec.maps() * spec.recordsPerMapPerReduce();
      if (count != expected) {
        throw new IllegalStateException("partition " + partition + " received " + count
            + " records, expected " + expected);
      }
      Thread.sleep(spec.reduceMillis());
      if (!spec.output().isEmpty()) {
        try (OutputStream out = output.open()) {
          out.write(("partition " + partition + " records " + count + " bytes " + bytes + "\n")
              .getBytes(StandardCharsets.UTF_8));
        }
      }
    }

    /**
     * A key that lands in partition {@code reduce}: the framework partitions by key hash, so the
     * key is searched for deterministically (a few tries at most on average).
     */
    static byte[] keyFor(int reduce, int reduces, int mapIndex, int k) {
      for (int salt = 0; ; salt++) {
        byte[] key = ("m" + mapIndex + "-r" + reduce + "-" + k + "-" + salt)
            .getBytes(StandardCharsets.UTF_8);
        if (dev.tide.driver.job.RecordCodec.partition(key, reduces) == reduce) {
          return key;
        }
      }
    }
  }
}
