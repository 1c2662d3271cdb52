package dev.tide.executor;

import dev.tide.driver.job.Reducer;
import dev.tide.output.JobOutput;
import dev.tide.rpc.TaskDescription;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output of a task of a job's last stage: one file, written in the attempt's own directory and
 * committed as {@link JobOutput} describes; it becomes visible when the job commits.
 */
final class TaskOutputFile implements Reducer.ReduceOutput {
  private static final Logger LOG = LoggerFactory.getLogger(TaskOutputFile.class);

  private final Configuration conf;
  private final TaskDescription task;
  private boolean opened;

  TaskOutputFile(Configuration conf, TaskDescription task) {
    this.conf = conf;
    this.task = task;
  }

  @Override
  public OutputStream open() throws IOException {
    if (task.outputPath().isEmpty()) {
      throw new IOException("job has no output path: the reducer " + task.taskClass()
          + " of stage " + task.stageId() + " cannot open an output file");
    }
    if (opened) {
      throw new IOException("the output file of " + task.describe() + " was already opened");
    }
    opened = true;
    return JobOutput.createAttemptFile(conf, task.outputPath(), task.taskId(), task.index());
  }

  @Override
  public void emit(byte[] key, byte[] value) throws IOException {
    throw new IOException("stage " + task.stageId() + " is the job's last stage: its reducer "
        + task.taskClass() + " writes the output file (ReduceOutput.open), it cannot emit records");
  }

  void commit() throws IOException {
    if (opened && !JobOutput.commitTask(conf, task.outputPath(), task.taskId(), task.index())) {
      LOG.info("Output of {} was already committed by another attempt", task.describe());
    }
  }
}
