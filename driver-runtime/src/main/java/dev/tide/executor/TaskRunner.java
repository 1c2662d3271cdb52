package dev.tide.executor;

import dev.tide.driver.job.JobArgs;
import dev.tide.driver.job.JobClasses;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.RecordCodec;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.scheduler.TaskDescription;
import dev.tide.driver.scheduler.TaskOutcome;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one task attempt inside an executor and turns its end into a {@link TaskOutcome}. Map
 * tasks write one data file and one index file under the application's local dirs and commit them
 * atomically; reduce tasks read every segment through the nodes' {@code tide_shuffle} services
 * and commit their output file.
 */
final class TaskRunner {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);

  private final Configuration conf;
  private final List<Path> appLocalDirs;
  private final Supplier<ShuffleClient> shuffleClient;

  /** @param shuffleClient the executor's shuffle client, made when a reduce task first needs it */
  TaskRunner(Configuration conf, List<Path> appLocalDirs, Supplier<ShuffleClient> shuffleClient) {
    this.conf = conf;
    this.appLocalDirs = appLocalDirs;
    this.shuffleClient = shuffleClient;
  }

  TaskOutcome run(TaskDescription task) {
    try {
      JobContext context = new JobContext(conf, JobArgs.decode(TideOptions.JOB_ARGS.get(conf)));
      return task.kind() == TaskDescription.Kind.MAP ? runMap(task, context)
          : runReduce(task, context);
    } catch (ShuffleSegments.FetchFailedException e) {
      LOG.warn("Task {} could not fetch its input: {}", task.describe(), e.getMessage());
      return new TaskOutcome(task.taskId(), TaskOutcome.State.FETCH_FAILED, e.getMessage(),
          e.cause().host(), e.cause().port(), e.wholeServiceLost(), e.lostMapIds(), Map.of());
    } catch (Throwable e) {
      LOG.warn("Task {} failed", task.describe(), e);
      return TaskOutcome.failed(task.taskId(), e.toString());
    }
  }

  private TaskOutcome runMap(TaskDescription task, JobContext context) throws Exception {
    Mapper mapper = JobClasses.newInstance(task.taskClass(), Mapper.class, "mapper");
    mapper.configure(context);
    ByteArrayOutputStream[] partitions = new ByteArrayOutputStream[task.reducers()];
    for (int p = 0; p < partitions.length; p++) {
      partitions[p] = new ByteArrayOutputStream();
    }
    mapper.map(new InputSplit(task.splitPayload(), task.preferredHosts()),
        (key, value) -> RecordCodec.write(
            partitions[RecordCodec.partition(key, task.reducers())], key, value));
    Path appDir = ShuffleLayout.chooseAppDir(appLocalDirs, task.shuffleId(), task.index());
    Path temp = MapOutputCommitter.tempDataFile(appDir, task.shuffleId(), task.index(),
        task.taskId());
    long[] lengths = new long[partitions.length];
    long total = 0;
    try (OutputStream out = Files.newOutputStream(temp)) {
      for (int p = 0; p < partitions.length; p++) {
        partitions[p].writeTo(out);
        lengths[p] = partitions[p].size();
        total += lengths[p];
      }
    }
    boolean won = MapOutputCommitter.commit(appDir, task.shuffleId(), task.index(), temp,
        lengths);
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("outputBytes", total);
    metrics.put("committed", won ? 1L : 0L);
    return TaskOutcome.succeeded(task.taskId(), metrics);
  }

  private TaskOutcome runReduce(TaskDescription task, JobContext context) throws Exception {
    Reducer reducer = JobClasses.newInstance(task.taskClass(), Reducer.class, "reducer");
    reducer.configure(context);
    ShuffleSegments segments = new ShuffleSegments(shuffleClient.get(), task);
    ReduceOutputFile output = new ReduceOutputFile(conf, task);
    reducer.reduce(task.index(), segments.records(), output::open);
    output.commit();
    return TaskOutcome.succeeded(task.taskId(), segments.metrics());
  }

  /** The reduce task's output file: written under _temporary, moved into place on commit. */
  private static final class ReduceOutputFile {
    private final Configuration conf;
    private final TaskDescription task;
    private org.apache.hadoop.fs.Path temp;

    ReduceOutputFile(Configuration conf, TaskDescription task) {
      this.conf = conf;
      this.task = task;
    }

    OutputStream open() throws IOException {
      if (task.outputPath().isEmpty()) {
        throw new IOException("job has no output path");
      }
      temp = new org.apache.hadoop.fs.Path(task.outputPath(), "_temporary/attempt_"
          + task.taskId() + "/" + finalName());
      return temp.getFileSystem(conf).create(temp, true);
    }

    String finalName() {
      return String.format("part-r-%05d", task.index());
    }

    void commit() throws IOException {
      if (temp == null) {
        return;
      }
      org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path(task.outputPath(),
          finalName());
      FileSystem fs = target.getFileSystem(conf);
      if (fs.exists(target) || !fs.rename(temp, target)) {
        LOG.info("Output {} was already committed by another attempt", target);
        fs.delete(temp.getParent(), true);
      }
    }
  }
}
