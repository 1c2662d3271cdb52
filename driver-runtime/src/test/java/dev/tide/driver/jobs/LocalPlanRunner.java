package dev.tide.driver.jobs;

import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobClasses;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Partitioner;
import dev.tide.driver.job.RecordMapper;
import dev.tide.driver.job.Reducer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Runs a job plan in this JVM with the framework's contract and none of its machinery, for tests
 * of the built-in jobs' mappers, combiners and reducers: each map task's records are folded by its
 * combiner (as one spill would be), partitioned by the reading stage's partitioner, and handed to
 * each reducer sorted by key as unsigned bytes (records of input 0 first within a key, emit order
 * otherwise). The last stage's reducers write into memory: {@code part-r-NNNNN} per partition
 * that opened its output.
 */
final class LocalPlanRunner {
  private static final Comparator<KeyValue> SHUFFLE_ORDER =
      Comparator.<KeyValue, byte[]>comparing(KeyValue::key, Arrays::compareUnsigned)
          .thenComparingInt(KeyValue::input);

  private final Configuration conf;
  private final List<String> args;
  private int plansRun;

  LocalPlanRunner(Configuration conf, List<String> args) {
    this.conf = conf;
    this.args = List.copyOf(args);
  }

  JobContext context() {
    return new JobContext(conf, args);
  }

  int plansRun() {
    return plansRun;
  }

  /** The output files of {@code plan}'s last stage by name, in name order. */
  Map<String, byte[]> run(JobPlan plan) throws Exception {
    plansRun++;
    Map<Integer, List<List<KeyValue>>> shuffled = new LinkedHashMap<>();
    Map<String, byte[]> files = new TreeMap<>();
    for (JobPlan.Stage stage : plan.stages()) {
      JobContext context = new JobContext(conf, args, stage.spec());
      Router router = new Router(plan, stage, shuffled);
      if (stage.isInput()) {
        for (InputSplit split : stage.splits()) {
          List<KeyValue> emitted = new ArrayList<>();
          Combiner combiner = map(stage, context, split, emitted);
          router.routeAll(combiner == null ? emitted : combine(combiner, emitted));
        }
        continue;
      }
      List<List<KeyValue>> partitions = shuffled.getOrDefault(stage.id(), List.of());
      for (int p = 0; p < stage.tasks(); p++) {
        List<KeyValue> records = new ArrayList<>(p < partitions.size() ? partitions.get(p)
            : List.of());
        records.sort(SHUFFLE_ORDER);
        Reducer reducer = JobClasses.newInstance(stage.taskClass(), Reducer.class, "reducer");
        reducer.configure(context);
        MemoryOutput output = new MemoryOutput(stage.consumer() < 0, router);
        reducer.reduce(p, records.iterator(), output);
        if (output.file != null) {
          files.put(String.format("part-r-%05d", p), output.file.toByteArray());
        }
      }
    }
    return files;
  }

  /**
   * A session that runs each plan here and writes its output files under the plan's output path
   * on the plan's FileSystem, as a committed job leaves them.
   */
  JobSession session() {
    return new JobSession() {
      @Override
      public JobContext context() {
        return LocalPlanRunner.this.context();
      }

      @Override
      public void run(JobPlan plan) throws JobFailedException {
        try {
          commit(plan.outputPath(), LocalPlanRunner.this.run(plan));
        } catch (Exception e) {
          throw new JobFailedException(e.toString());
        }
      }
    };
  }

  /** The output of a last-stage reducer run by hand: a file written into {@code file}. */
  static Reducer.ReduceOutput into(OutputStream file) {
    return new MemoryOutput(true, null) {
      @Override
      public OutputStream open() {
        return file;
      }
    };
  }

  private void commit(String outputPath, Map<String, byte[]> files) throws IOException {
    Path dir = new Path(outputPath);
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      try (FSDataOutputStream out = fs.create(new Path(dir, file.getKey()))) {
        out.write(file.getValue());
      }
    }
  }

  private Combiner map(JobPlan.Stage stage, JobContext context, InputSplit split,
      List<KeyValue> emitted) throws Exception {
    Mapper.MapOutput collect = (k, v) -> emitted.add(new KeyValue(k, v));
    if (stage.dataset() == null) {
      Mapper mapper = JobClasses.newInstance(stage.taskClass(), Mapper.class, "mapper");
      mapper.configure(context);
      mapper.map(split, collect);
      return mapper.combiner();
    }
    RecordMapper mapper = JobClasses.newInstance(stage.taskClass(), RecordMapper.class,
        "record mapper");
    mapper.configure(context);
    Mapper source = JobClasses.newInstance(stage.dataset().mapperClass(), Mapper.class,
        "dataset mapper");
    source.configure(context);
    source.map(split, (k, v) -> {
      try {
        mapper.map(new KeyValue(k, v), collect);
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    });
    mapper.finish(collect);
    return mapper.combiner();
  }

  private static List<KeyValue> combine(Combiner combiner, List<KeyValue> records)
      throws Exception {
    Map<byte[], List<byte[]>> byKey = new TreeMap<>(Arrays::compareUnsigned);
    for (KeyValue r : records) {
      byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
    }
    List<KeyValue> combined = new ArrayList<>();
    for (Map.Entry<byte[], List<byte[]>> e : byKey.entrySet()) {
      combined.add(new KeyValue(e.getKey(),
          combiner.combine(e.getKey(), e.getValue().iterator())));
    }
    return combined;
  }

  /** Sends a stage's records to its consumer's partitions, tagged with the stage's input index. */
  private static final class Router {
    private final List<List<KeyValue>> partitions;
    private final Partitioner partitioner;
    private final int input;

    Router(JobPlan plan, JobPlan.Stage stage, Map<Integer, List<List<KeyValue>>> shuffled) {
      int consumer = stage.consumer();
      if (consumer < 0) {
        partitions = null;
        partitioner = null;
        input = 0;
        return;
      }
      partitions = shuffled.computeIfAbsent(consumer, c -> {
        List<List<KeyValue>> lists = new ArrayList<>();
        for (int p = 0; p < plan.outputPartitions(stage.id()); p++) {
          lists.add(new ArrayList<>());
        }
        return lists;
      });
      JobPlan.Partitioning partitioning = plan.outputPartitioning(stage.id());
      partitioner = JobClasses.newInstance(partitioning.partitionerClass(), Partitioner.class,
          "partitioner");
      partitioner.configure(partitioning.spec());
      input = plan.stage(consumer).parents().indexOf(stage.id());
    }

    void route(byte[] key, byte[] value) {
      partitions.get(partitioner.partition(key, partitions.size()))
          .add(new KeyValue(key, value, input));
    }

    void routeAll(List<KeyValue> records) {
      for (KeyValue r : records) {
        route(r.key(), r.value());
      }
    }
  }

  /** The last stage's reducers open a file; any other stage's emit records. */
  private static class MemoryOutput implements Reducer.ReduceOutput {
    private final boolean last;
    private final Router router;
    private ByteArrayOutputStream file;

    MemoryOutput(boolean last, Router router) {
      this.last = last;
      this.router = router;
    }

    @Override
    public OutputStream open() throws IOException {
      if (!last) {
        throw new IOException("a stage that feeds another must emit, not open a file");
      }
      file = new ByteArrayOutputStream();
      return file;
    }

    @Override
    public void emit(byte[] key, byte[] value) throws IOException {
      if (last) {
        throw new IOException("the last stage must open its output, not emit");
      }
      router.route(key, value);
    }
  }
}
