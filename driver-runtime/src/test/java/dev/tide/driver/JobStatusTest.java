package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The one line the client prints for a running job. */
class JobStatusTest {
  private static JobStatus batch(int tasksTotal, String waiting) {
    return new JobStatus("wordcount", 1, 2, 12, tasksTotal, 20, 8, 3, 4, 0.3f, waiting, "");
  }

  @Test
  void aBatchJobShowsItsStageTasksAndExecutors() {
    assertEquals("stage 1/2, tasks 12/40, executors 3 (target 4)", batch(40, "").describe());
  }

  @Test
  void aWaitingReasonIsAppended() {
    assertEquals("stage 1/2, tasks 12/40, executors 3 (target 4), waiting: 2 nodes excluded",
        batch(40, "").withWaitingReason("2 nodes excluded").describe());
  }

  @Test
  void beforeItsPlanHasTasksTheJobIsPlanningWhateverItWaitsFor() {
    assertEquals("planning the job", batch(0, "").describe());
    assertEquals("planning the job", batch(0, "queue full").describe());
  }

  @Test
  void aStreamingJobShowsItsBatchesInsteadOfStages() {
    JobStatus stream = new JobStatus("stream-rate", 0, 0, 0, 0, 0, 0, 2, 5, 0f, "",
        "batches 12, last 2000 records in 1.3 s, delay 0 ms");
    assertEquals("batches 12, last 2000 records in 1.3 s, delay 0 ms, executors 2 (target 5)",
        stream.describe());
    assertEquals("batches 12, last 2000 records in 1.3 s, delay 0 ms, executors 2 (target 5),"
        + " waiting: queue full", stream.withWaitingReason("queue full").describe());
  }

  @Test
  void changingTheWaitingReasonKeepsEverythingElse() {
    JobStatus damaged = new JobStatus("sort", 2, 2, 5, 9, 1, 3, 2, 2, 0.5f, "", "", 4);
    JobStatus waiting = damaged.withWaitingReason("x");
    assertEquals(new JobStatus("sort", 2, 2, 5, 9, 1, 3, 2, 2, 0.5f, "x", "", 4), waiting);
    assertEquals(0, batch(1, "").damagedMapOutputs());
  }
}
