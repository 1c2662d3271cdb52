package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.TaskAttempt;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a task attempt shows the job's mapper, run as an executor runs it. */
class TaskRunnerTest {
  @TempDir Path appDir;

  /** Fails saying which attempt its context names, so that the outcome carries it. */
  public static final class AttemptMapper implements Mapper {
    private TaskAttempt attempt;

    @Override
    public void configure(JobContext context) {
      attempt = context.task();
    }

    @Override
    public void map(InputSplit split, MapOutput output) {
      if (attempt == null) {
        throw new IllegalStateException("no task attempt in the mapper's context");
      }
      throw new IllegalStateException("seen " + attempt.describe() + " id "
          + attempt.attemptId());
    }
  }

  /** Issue 37 item 9: mappers and reducers can tell which task attempt they run in. */
  @Test
  void aMapperIsToldItsStageTaskAttemptAndAttemptId() {
    TaskRunner runner = new TaskRunner(new Configuration(false), List.of(appDir), () -> {
      throw new AssertionError("a map task fetches nothing");
    });
    TaskDescription task = new TaskDescription(41, TaskDescription.Kind.MAP, 2, 5, 1,
        AttemptMapper.class.getName(), new byte[0], List.of(), List.of(), 1,
        JobPlan.Partitioning.hash(), "", null, new byte[0]);

    TaskOutcome outcome = runner.run(task);

    assertEquals(TaskOutcome.State.FAILED, outcome.state(), outcome::toString);
    assertEquals("java.lang.IllegalStateException: seen map 5 (stage 2, attempt 1) id 41",
        outcome.message());
    assertEquals(new TaskAttempt(2, TaskAttempt.Kind.MAP, 5, 1, 41), TaskRunner.attempt(task));
  }
}
