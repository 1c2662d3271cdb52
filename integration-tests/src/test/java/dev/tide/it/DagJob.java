package dev.tide.it;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.testing.Await;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A user job of several shuffle stages, in two shapes, each with an independent computation of
 * its output for the tests ({@link #expectedChain}, {@link #expectedJoin}):
 * <ul>
 *   <li>{@code chain <maps> <wordsPerMap> <output> [gate]}: words -> count per word -> words
 *       per count bucket -> total per bucket: three shuffle stages after the input stage,
 *       writing {@code b<count/5><TAB><words>} lines. With {@code gate}, the third stage's tasks
 *       wait until a file exists at that path (a test creates it once it has removed or damaged
 *       a map output under them) before reading.
 *   <li>{@code join <userSplits> <orderSplits> <output> [failingPartition]}: a users input (no
 *       user whose id is a multiple of 7) and an orders input (some for unknown users) joined by
 *       user id into one shuffle stage, writing {@code name<TAB>orders<TAB>amount} for every user
 *       with orders. The join task of {@code failingPartition} (if given) fails once the other
 *       partitions committed their files.
 * </ul>
 */
public final class DagJob implements TideJob {
  static final int WORDS = 500;
  static final int USERS_PER_SPLIT = 100;
  static final int ORDERS_PER_SPLIT = 300;
  /** The join's reduce partitions. */
  static final int JOIN_PARTITIONS = 3;
  /** How long a task waits for the test's gate file or for another task's commit. */
  private static final java.time.Duration GATE_WAIT = java.time.Duration.ofSeconds(120);

  @Override
  public JobPlan plan(JobContext context) {
    List<String> args = context.args();
    if (args.size() < 4) {
      throw new IllegalArgumentException("usage: chain <maps> <wordsPerMap> <output> [gate]"
          + " | join <userSplits> <orderSplits> <output>");
    }
    int a = Integer.parseInt(args.get(1));
    long b = Long.parseLong(args.get(2));
    String output = args.get(3);
    JobPlan.Builder plan = JobPlan.builder("dag-" + args.get(0));
    if (args.get(0).equals("chain")) {
      JobPlan.Stage words = plan.input("words", splits(a, b), WordMapper.class);
      JobPlan.Stage counts = plan.shuffle("count", 3, CountReducer.class, words);
      JobPlan.Stage buckets = plan.shuffle("byCount", 2, BucketReducer.class, counts);
      return plan.output(plan.shuffle("total", 1, TotalReducer.class, buckets), output);
    }
    JobPlan.Stage users = plan.input("users", splits(a, 0), UserMapper.class);
    JobPlan.Stage orders = plan.input("orders", splits((int) b, 0), OrderMapper.class);
    return plan.output(plan.shuffle("join", JOIN_PARTITIONS, JoinReducer.class, users, orders), output);
  }

  private static List<InputSplit> splits(int n, long perSplit) {
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      splits.add(new InputSplit(ByteBuffer.allocate(12).putInt(i).putLong(perSplit).array(),
          List.of()));
    }
    return splits;
  }

  static String word(SplittableRandom random) {
    return "w" + random.nextInt(WORDS);
  }

  static String bucket(long count) {
    return "b" + count / 5;
  }

  /** The chain job's output lines, computed without Tide. */
  static List<String> expectedChain(int maps, long wordsPerMap) {
    Map<String, Long> counts = new HashMap<>();
    for (int m = 0; m < maps; m++) {
      SplittableRandom random = new SplittableRandom(m);
      for (long i = 0; i < wordsPerMap; i++) {
        counts.merge(word(random), 1L, Long::sum);
      }
    }
    TreeMap<String, Long> buckets = new TreeMap<>();
    counts.values().forEach(c -> buckets.merge(bucket(c), 1L, Long::sum));
    List<String> lines = new ArrayList<>();
    buckets.forEach((k, v) -> lines.add(k + "\t" + v));
    return lines;
  }

  static boolean userExists(int id) {
    return id % 7 != 0;
  }

  /** The join job's output lines (sorted), computed without Tide. */
  static List<String> expectedJoin(int userSplits, int orderSplits) {
    TreeMap<Integer, long[]> byUser = new TreeMap<>();
    for (int o = 0; o < orderSplits; o++) {
      SplittableRandom random = new SplittableRandom(1000 + o);
      for (int i = 0; i < ORDERS_PER_SPLIT; i++) {
        int user = random.nextInt(userSplits * USERS_PER_SPLIT + 50);
        long amount = random.nextInt(1000);
        long[] agg = byUser.computeIfAbsent(user, k -> new long[2]);
        agg[0]++;
        agg[1] += amount;
      }
    }
    List<String> lines = new ArrayList<>();
    byUser.forEach((user, agg) -> {
      if (user < userSplits * USERS_PER_SPLIT && userExists(user)) {
        lines.add("name" + user + "\t" + agg[0] + "\t" + agg[1]);
      }
    });
    lines.sort(null);
    return lines;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long asLong(byte[] bytes) {
    return ByteBuffer.wrap(bytes).getLong();
  }

  /** Emits (word, 1) for its split's pseudo-random words. */
  public static final class WordMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws IOException {
      ByteBuffer spec = ByteBuffer.wrap(split.payload());
      SplittableRandom random = new SplittableRandom(spec.getInt());
      long words = spec.getLong();
      for (long i = 0; i < words; i++) {
        output.emit(utf8(word(random)), longBytes(1));
      }
    }
  }

  /** Sums each word's ones and emits (count, word). */
  public static final class CountReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws IOException {
      forEachKey(records, (key, values) -> {
        long sum = 0;
        for (byte[] v : values) {
          sum += asLong(v);
        }
        output.emit(longBytes(sum), key);
      });
    }
  }

  /** Counts the words of each count and emits (bucket, words). */
  public static final class BucketReducer implements Reducer {
    /** The file the tasks wait for, or null. */
    private org.apache.hadoop.fs.Path gate;
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
      List<String> args = context.args();
      gate = args.size() > 4 ? new org.apache.hadoop.fs.Path(args.get(4)) : null;
    }

    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      if (gate != null) {
        awaitFile(context, gate, "the test's gate");
      }
      forEachKey(records, (key, values) -> output.emit(utf8(bucket(asLong(key))),
          longBytes(values.size())));
    }
  }

  /** Sums each bucket's words and writes {@code bucket<TAB>words}. */
  public static final class TotalReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws IOException {
      try (Writer out = new OutputStreamWriter(output.open(), StandardCharsets.UTF_8)) {
        forEachKey(records, (key, values) -> {
          long sum = 0;
          for (byte[] v : values) {
            sum += asLong(v);
          }
          out.write(new String(key, StandardCharsets.UTF_8) + "\t" + sum + "\n");
        });
      }
    }
  }

  /** Emits (user id, name) for its split's users that exist. */
  public static final class UserMapper implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws IOException {
      int s = ByteBuffer.wrap(split.payload()).getInt();
      for (int id = s * USERS_PER_SPLIT; id < (s + 1) * USERS_PER_SPLIT; id++) {
        if (userExists(id)) {
          output.emit(utf8("user" + id), utf8("name" + id));
        }
      }
    }
  }

  /** Emits (user id, amount) for its split's pseudo-random orders. */
  public static final class OrderMapper implements Mapper {
    private int userSplits;

    @Override
    public void configure(JobContext context) {
      userSplits = Integer.parseInt(context.args().get(1));
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws IOException {
      int s = ByteBuffer.wrap(split.payload()).getInt();
      SplittableRandom random = new SplittableRandom(1000 + s);
      for (int i = 0; i < ORDERS_PER_SPLIT; i++) {
        int user = random.nextInt(userSplits * USERS_PER_SPLIT + 50);
        output.emit(utf8("user" + user), longBytes(random.nextInt(1000)));
      }
    }
  }

  /**
   * Joins each user's name (input 0, first within the key) with its orders (input 1) and writes
   * {@code name<TAB>orders<TAB>amount}; users without orders and orders without a user are
   * dropped. Holds one key at a time.
   */
  public static final class JoinReducer implements Reducer {
    private int failingPartition = -1;
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
      List<String> args = context.args();
      failingPartition = args.size() > 4 ? Integer.parseInt(args.get(4)) : -1;
    }

    /**
     * Waits until every other join partition committed its file: a task commit renames the
     * attempt's directory to {@code <output>/_temporary/task_NNNNN}.
     */
    private void awaitOtherPartitionsCommitted(int partition)
        throws IOException, InterruptedException {
      org.apache.hadoop.fs.Path temporary =
          new org.apache.hadoop.fs.Path(context.args().get(3), "_temporary");
      for (int other = 0; other < JOIN_PARTITIONS; other++) {
        if (other != partition) {
          awaitFile(context, new org.apache.hadoop.fs.Path(temporary,
              String.format("task_%05d", other)), "join partition " + other + "'s commit");
        }
      }
    }

    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      if (partition == failingPartition) {
        awaitOtherPartitionsCommitted(partition);
        throw new IllegalStateException("join partition " + partition + " fails, as asked");
      }
      try (Writer out = new OutputStreamWriter(output.open(), StandardCharsets.UTF_8)) {
        byte[] key = null;
        String name = null;
        long orders = 0;
        long amount = 0;
        while (true) {
          KeyValue r = records.hasNext() ? records.next() : null;
          if (key != null && (r == null || !Arrays.equals(key, r.key()))) {
            if (name != null && orders > 0) {
              out.write(name + "\t" + orders + "\t" + amount + "\n");
            }
            name = null;
            orders = 0;
            amount = 0;
          }
          if (r == null) {
            return;
          }
          key = r.key();
          if (r.input() == 0) {
            if (orders > 0) {
              throw new IllegalStateException("an order of " + new String(key,
                  StandardCharsets.UTF_8) + " came before its user: input 0 must come first");
            }
            name = new String(r.value(), StandardCharsets.UTF_8);
          } else {
            orders++;
            amount += asLong(r.value());
          }
        }
      }
    }
  }

  /** What a reducer does with one key's values. */
  private interface KeyValues {
    void accept(byte[] key, List<byte[]> values) throws IOException;
  }

  /** Groups adjacent records by key (they come sorted by key). */
  private static void forEachKey(Iterator<KeyValue> records, KeyValues action)
      throws IOException {
    byte[] key = null;
    List<byte[]> values = new ArrayList<>();
    while (records.hasNext()) {
      KeyValue r = records.next();
      if (key != null && !Arrays.equals(key, r.key())) {
        action.accept(key, values);
        values = new ArrayList<>();
      }
      key = r.key();
      values.add(r.value());
    }
    if (key != null) {
      action.accept(key, values);
    }
  }


  /** Waits until {@code path} exists (task code: the containers have the tests' classpath). */
  private static void awaitFile(JobContext context, org.apache.hadoop.fs.Path path, String what)
      throws IOException {
    org.apache.hadoop.fs.FileSystem fs = path.getFileSystem(context.conf());
    Await.until(GATE_WAIT, what + " (" + path + ")", () -> fs.exists(path));
  }
}
