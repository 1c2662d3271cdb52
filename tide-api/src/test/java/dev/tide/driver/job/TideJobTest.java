package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** What the job interfaces do by default. */
class TideJobTest {
  private static final JobContext CONTEXT = new JobContext(new Configuration(false),
      List.of("a"));

  /** A job that implements nothing. */
  public static final class Empty implements TideJob {}

  /** A job of one plan. */
  public static final class OnePlan implements TideJob {
    static final JobPlan PLAN = JobPlan.mapReduce("one", List.of(new InputSplit(new byte[0],
        List.of())), Mapper.class, Reducer.class, 1, "");

    @Override
    public JobPlan plan(JobContext context) {
      return PLAN;
    }
  }

  /** Records the plans it is asked to run. */
  private static final class RecordingSession implements JobSession {
    final List<JobPlan> ran = new ArrayList<>();

    @Override
    public JobContext context() {
      return CONTEXT;
    }

    @Override
    public void run(JobPlan plan) {
      ran.add(plan);
    }
  }

  @Test
  void aJobOfOnePlanRunsThatPlanInTheSession() throws Exception {
    RecordingSession session = new RecordingSession();
    new OnePlan().run(session);
    assertEquals(1, session.ran.size());
    assertSame(OnePlan.PLAN, session.ran.get(0));
  }

  @Test
  void aJobWithNeitherPlanNorRunSaysSo() throws Exception {
    Empty job = new Empty();
    job.checkArguments(CONTEXT);
    job.checkPaths(CONTEXT);
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> job.run(new RecordingSession()));
    assertEquals(Empty.class.getName() + " implements neither plan(JobContext) nor"
        + " run(JobSession)", e.getMessage());
  }

  @Test
  void aStreamingJobIsNeverRunAsOnePlan() {
    StreamingJob stream = new StreamingJob() {
      @Override
      public StreamSource source(JobContext context) {
        throw new AssertionError();
      }

      @Override
      public String outputPath(JobContext context) {
        return "out";
      }

      @Override
      public JobPlan batchPlan(JobContext context, StreamSource.Batch batch, String output) {
        throw new AssertionError();
      }
    };
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> stream.run(new RecordingSession()));
    assertTrue(e.getMessage().endsWith(" is a streaming job; the driver runs its batches"),
        e.getMessage());
  }

  @Test
  void aTaskAttemptDescribesItselfAsFailuresNameIt() {
    assertEquals("reduce 4 (stage 2, attempt 1)",
        new TaskAttempt(2, TaskAttempt.Kind.REDUCE, 4, 1, 99).describe());
  }
}
