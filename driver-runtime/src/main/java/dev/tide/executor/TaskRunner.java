package dev.tide.executor;

import dev.tide.app.AppOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobArgs;
import dev.tide.driver.job.JobClasses;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Partitioner;
import dev.tide.driver.job.RecordMapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TaskAttempt;
import dev.tide.executor.sort.MapOutputWriter;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one task attempt inside an executor and turns its end into a {@link TaskOutcome}. Map
 * tasks sort and spill their records in bounded memory ({@link MapOutputWriter}) into one data
 * file and one index file under the application's local dirs, committed atomically; reduce tasks
 * read every segment through the nodes' {@code tide_shuffle} services, in memory while their
 * budget lasts and on local disk after, merged by key ({@link ShuffleSegments}), and commit their
 * output file. Spill files live in an attempt's own dir and are deleted when it ends, failed or
 * not. An OutOfMemoryError fails the task (not a fetch) with the setting to raise.
 */
final class TaskRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);

  private final Configuration conf;
  private final List<Path> appLocalDirs;
  private final Supplier<ShuffleClient> shuffleClient;
  private final HeapPeak heapPeak = new HeapPeak();
  private final BlockCache cache;
  private final MovedMapOutputs movedOutputs;
  private volatile boolean outOfMemory;

  /** @param shuffleClient the executor's shuffle client, made when a reduce task first needs it */
  TaskRunner(Configuration conf, List<Path> appLocalDirs, Supplier<ShuffleClient> shuffleClient) {
    this(conf, appLocalDirs, shuffleClient, new MovedMapOutputs());
  }

  /** @param movedOutputs where map outputs went since tasks were described (the driver says) */
  TaskRunner(Configuration conf, List<Path> appLocalDirs, Supplier<ShuffleClient> shuffleClient,
      MovedMapOutputs movedOutputs) {
    this.movedOutputs = movedOutputs;
    this.conf = conf;
    this.appLocalDirs = appLocalDirs;
    this.shuffleClient = shuffleClient;
    long cacheBytes = ExecutorOptions.CACHE_MEMORY.get(conf);
    this.cache = new BlockCache(cacheBytes > 0 ? cacheBytes
        : Runtime.getRuntime().maxMemory() / 4);
  }

  TaskOutcome run(TaskDescription task) {
    try {
      JobContext context = new JobContext(conf, JobArgs.decode(AppOptions.JOB_ARGS.get(conf)),
          task.spec(), attempt(task));
      if (task.dataset() != null) {
        return runDatasetMap(task, context);
      }
      return task.kind() == TaskDescription.Kind.MAP ? runMap(task, context)
          : runReduce(task, context);
    } catch (ShuffleSegments.FetchFailedException e) {
      LOG.warn("Task {} could not fetch its input: {}", task.describe(), e.getMessage());
      return new TaskOutcome(task.taskId(), TaskOutcome.State.FETCH_FAILED, e.getMessage(),
          e.cause().host(), e.cause().port(), e.wholeServiceLost(), e.shuffleId(), e.lostMapIds(),
          Map.of(), e.lossCause());
    } catch (OutOfMemoryError e) {
      outOfMemory = true;
      long heapMb = Runtime.getRuntime().maxMemory() >> 20;
      LOG.error("Task {} ran out of memory ({} MiB heap)", task.describe(), heapMb, e);
      return new TaskOutcome(task.taskId(), TaskOutcome.State.FAILED,
          "java.lang.OutOfMemoryError in " + task.describe() + " with a " + heapMb
          + " MiB executor heap: " + e.getMessage() + "; raise tide.executor.memory (now "
          + AppOptions.EXECUTOR_MEMORY_MB.get(conf) + "m), or make the "
          + (task.kind() == TaskDescription.Kind.MAP ? "mapper" : "reducer")
          + " keep less in memory", "", 0, false, 0, List.of(),
          Map.of(TaskOutcome.EXECUTOR_OUT_OF_MEMORY, 1L));
    } catch (Throwable e) {
      LOG.warn("Task {} failed", task.describe(), e);
      return TaskOutcome.failed(task.taskId(), e.toString());
    }
  }

  /** The attempt as the job API shows it to mappers and reducers. */
  static TaskAttempt attempt(TaskDescription task) {
    return new TaskAttempt(task.stageId(), task.kind() == TaskDescription.Kind.MAP
        ? TaskAttempt.Kind.MAP : TaskAttempt.Kind.REDUCE, task.index(), task.attempt(),
        task.taskId());
  }

  private TaskOutcome runMap(TaskDescription task, JobContext context) throws Exception {
    Mapper mapper = JobClasses.newInstance(task.taskClass(), Mapper.class, "mapper");
    mapper.configure(context);
    Map<String, Long> metrics = writeMapOutput(task, mapper.combiner(),
        output -> mapper.map(new InputSplit(task.splitPayload(), task.preferredHosts()),
            output::emit));
    metrics.put("peakHeapBytes", peakHeapBytes());
    return TaskOutcome.succeeded(task.taskId(), metrics);
  }

  /**
   * A map task over a block of a dataset: its records come from this executor's cache if it holds
   * the block, else from the dataset's mapper run over the split (and are cached on the way, if
   * the dataset is cached and they fit); each goes through the stage's {@link RecordMapper}.
   */
  private TaskOutcome runDatasetMap(TaskDescription task, JobContext context) throws Exception {
    TaskDescription.DatasetBlock block = task.dataset();
    RecordMapper mapper = JobClasses.newInstance(task.taskClass(), RecordMapper.class,
        "record mapper");
    mapper.configure(context);
    String key = block.name() + "#" + task.index();
    List<KeyValue> cached = block.cache() ? cache.get(key) : null;
    boolean[] holds = {cached != null};
    Map<String, Long> metrics = writeMapOutput(task, mapper.combiner(), output -> {
      if (cached != null) {
        for (KeyValue record : cached) {
          mapper.map(record, output::emit);
        }
      } else {
        Mapper source = JobClasses.newInstance(block.mapperClass(), Mapper.class,
            "mapper of dataset " + block.name());
        source.configure(context);
        BlockCache.Filling filling = block.cache() ? cache.fill(key) : null;
        try {
          source.map(new InputSplit(task.splitPayload(), task.preferredHosts()), (k, v) -> {
            if (filling != null) {
              filling.add(k, v);
            }
            try {
              mapper.map(new KeyValue(k, v), output::emit);
            } catch (IOException | RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new IOException(e);
            }
          });
          holds[0] = filling != null && filling.commit();
        } finally {
          if (filling != null && !holds[0]) {
            filling.abandon();
          }
        }
      }
      mapper.finish(output::emit);
    });
    if (block.cache()) {
      metrics.put(TaskOutcome.CACHED_BLOCK, holds[0] ? 1L : 0L);
      metrics.put("cacheHit", cached != null ? 1L : 0L);
      metrics.put("cacheUsedBytes", cache.usedBytes());
    }
    metrics.put("peakHeapBytes", peakHeapBytes());
    return TaskOutcome.succeeded(task.taskId(), metrics);
  }

  /** What a task does with the writer of its map output. */
  private interface MapOutputBody {
    void write(MapOutputWriter output) throws Exception;
  }

  /**
   * Writes this task's map output of shuffle {@code task.shuffleId()} (sorted, spilled, merged)
   * and commits it; returns the task's metrics.
   */
  private Map<String, Long> writeMapOutput(TaskDescription task,
      dev.tide.driver.job.Combiner combiner, MapOutputBody body) throws Exception {
    Path appDir = ShuffleLayout.chooseAppDir(appLocalDirs, task.shuffleId(), task.index());
    Path temp = MapOutputCommitter.tempDataFile(appDir, task.shuffleId(), task.index(),
        task.taskId());
    Map<String, Long> metrics = new LinkedHashMap<>();
    // Spills beside the output, so that a single spill becomes the output by a rename.
    Partitioner partitioner = JobClasses.newInstance(
        task.outputPartitioning().partitionerClass(), Partitioner.class, "partitioner");
    partitioner.configure(task.outputPartitioning().spec());
    try (MapOutputWriter output = new MapOutputWriter(task.outputPartitions(), partitioner,
        sortBufferBytes(), combiner, spillDir(appDir, task))) {
      body.write(output);
      long[] lengths = output.finish(temp);
      long total = 0;
      for (long length : lengths) {
        total += length;
      }
      boolean won = MapOutputCommitter.commit(appDir, task.shuffleId(), task.index(), temp,
          lengths, ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED.get(conf) ? output.checksums() : null);
      metrics.put("records", output.records());
      metrics.put("outputBytes", total);
      metrics.put("spills", (long) output.spills());
      metrics.put("spilledBytes", output.spilledBytes());
      metrics.put("committed", won ? 1L : 0L);
    } finally {
      Files.deleteIfExists(temp); // left only if the attempt failed before its commit
    }
    return metrics;
  }

  /**
   * Whether a task ran out of heap in this executor: its JVM may be left in a bad state, so the
   * executor exits after reporting the task and a fresh one replaces it.
   */
  boolean ranOutOfMemory() {
    return outOfMemory;
  }

  /** {@code tide.executor.shuffle.sort.buffer}, or a fifth of the heap shared by the task slots. */
  private long sortBufferBytes() {
    long set = ExecutorOptions.SORT_BUFFER_BYTES.get(conf);
    long half = Runtime.getRuntime().maxMemory() / 2;
    if (set > half) {
      LOG.warn("{} = {} bytes is more than half the executor's heap ({} bytes); using {} bytes"
          + " (raise tide.executor.memory for a larger buffer)",
          ExecutorOptions.SORT_BUFFER_BYTES.key(), set, 2 * half, half);
      return half;
    }
    return set > 0 ? set : perSlotFifthOfHeap();
  }

  private long reduceMemoryBytes() {
    return Math.min(ExecutorOptions.MAX_BYTES_IN_FLIGHT.get(conf), perSlotFifthOfHeap());
  }

  private long perSlotFifthOfHeap() {
    int slots = Math.max(1, AppOptions.EXECUTOR_CORES.get(conf)
        / Math.max(1, AppOptions.TASK_CPUS.get(conf)));
    return Runtime.getRuntime().maxMemory() / 5 / slots;
  }

  /** A directory of this attempt's own for spill files, under one of the application's dirs. */
  private static Path spillDir(Path appDir, TaskDescription task) {
    return spillDir(appDir, Long.toString(task.taskId()));
  }

  private static Path spillDir(Path appDir, String attempt) {
    return appDir.resolve("tide-spill").resolve("attempt-" + attempt);
  }

  private long peakHeapBytes() {
    return heapPeak.bytes();
  }

  private TaskOutcome runReduce(TaskDescription task, JobContext context) throws Exception {
    Reducer reducer = JobClasses.newInstance(task.taskClass(), Reducer.class, "reducer");
    reducer.configure(context);
    Map<String, Long> metrics = new LinkedHashMap<>();
    try (ShuffleSegments segments = new ShuffleSegments(shuffleClient.get(), task,
        reduceMemoryBytes(), spillDir(ShuffleLayout.chooseAppDir(appLocalDirs,
            task.shuffleId(), task.index()), task.taskId() + "-input"),
        ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED.get(conf), movedOutputs)) {
      if (task.outputPartitions() > 0) {
        metrics.putAll(writeMapOutput(task, null, output -> reducer.reduce(task.index(),
            segments.records(), new ShuffledReduceOutput(task, output))));
      } else {
        TaskOutputFile output = new TaskOutputFile(conf, task);
        reducer.reduce(task.index(), segments.records(), output);
        output.commit();
      }
      metrics.putAll(segments.metrics());
    }
    metrics.put("peakHeapBytes", peakHeapBytes());
    return TaskOutcome.succeeded(task.taskId(), metrics);
  }

  /** A reduce task's output when its stage feeds another: records into the next shuffle. */
  private record ShuffledReduceOutput(TaskDescription task, MapOutputWriter writer)
      implements Reducer.ReduceOutput {
    @Override
    public OutputStream open() throws IOException {
      throw new IOException("stage " + task.stageId() + " feeds another stage: its reducer "
          + task.taskClass() + " must emit records (ReduceOutput.emit), not open an output file");
    }

    @Override
    public void emit(byte[] key, byte[] value) throws IOException {
      writer.emit(key, value);
    }
  }
}
