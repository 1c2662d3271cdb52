package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;
import dev.tide.driver.alloc.StreamingSettings.Policy;
import org.junit.jupiter.api.Test;

/**
 * The proportional rule on a hand-computable job: a batch every 2 s, 32 tasks, 2 ms of task time
 * per record, 150 ms of driver overhead, 1 slot per executor, the shipped defaults
 * (targetUtilization 0.9, catchUpTime 30 s, scaleDownMargin 0.2 for 3 batches,
 * maxScaleDownStep 0.5).
 */
class ProportionalStreamingPolicyTest {
  private static final long INTERVAL = 2_000;
  private static final int TASKS = 32;
  private static final double MILLIS_PER_RECORD = 2.0;
  private static final long OVERHEAD = 150;

  private final StreamingAllocationPolicy policy = StreamingAllocationPolicy.create(
      StreamingSettings.defaults(Policy.PROPORTIONAL, INTERVAL, 0, 50));

  /** A batch of {@code records} that ran on {@code executors} throughout, as the job runs it. */
  private static CompletedBatch ran(long records, int executors) {
    return ran(records, executors, OVERHEAD);
  }

  private static CompletedBatch ran(long records, int executors, long overhead) {
    double taskSeconds = records * MILLIS_PER_RECORD / 1000;
    long waves = (TASKS + executors - 1) / executors;
    long processing = overhead + Math.round(waves * taskSeconds * 1000 / TASKS);
    return new CompletedBatch(0, records, processing, 0, processing > INTERVAL, taskSeconds,
        executors, false, TASKS);
  }

  private static BeforeBatch due(long records, int executors) {
    return new BeforeBatch(0, 0, 1, records, executors, 0, executors);
  }

  /**
   * 1000 records/s (2000 a batch) fit 3 executors: 11 waves of 125 ms = 1375 ms; at 8000 a batch
   * a task takes 500 ms, the budget is 0.9 x (2000 - 150) = 1665 ms = 3 waves: ceil(32 / 3) = 11.
   */
  @Test
  void aFourfoldStepIsMetInOneStepAndHeld() {
    for (int i = 0; i < 5; i++) {
      policy.batchCompleted(ran(2_000, 3));
      assertEquals(3, policy.beforeBatch(due(2_000, 3)).target());
    }
    Decision up = policy.beforeBatch(due(8_000, 3));
    assertEquals(11, up.target(), up.reason());
    assertEquals(0, up.remove());
    assertTrue(up.reason().startsWith("scale up 3 -> 11"), up.reason());
    for (int i = 0; i < 10; i++) {
      policy.batchCompleted(ran(8_000, 11));
      Decision d = policy.beforeBatch(due(8_000, 11));
      assertEquals(11, d.target(), d.reason());
    }
  }

  /** Without the task count the size is the work spread evenly: busy 16 s / 0.9 x 1808 ms. */
  @Test
  void withoutTheTaskCountWorkIsSpreadEvenly() {
    for (int i = 0; i < 5; i++) {
      CompletedBatch b = ran(2_000, 3);
      policy.batchCompleted(new CompletedBatch(0, b.records(), b.processingMillis(), 0, false,
          b.taskSeconds(), 3, false));
    }
    // overhead = 1525 - 4000 / 3 = 192 ms; 16 s / (0.9 x 1.808 s) = 9.83 -> 10
    assertEquals(10, policy.beforeBatch(due(8_000, 3)).target());
  }

  @Test
  void scaleDownWaitsForScaleDownBatchesAndIsBounded() {
    for (int i = 0; i < 5; i++) {
      policy.batchCompleted(ran(8_000, 11));
    }
    assertEquals(11, policy.beforeBatch(due(8_000, 11)).target());
    for (int i = 0; i < 3; i++) {
      policy.batchCompleted(ran(2_000, 11));
    }
    // the size is 3 now; twice kept, the third time down by at most half: 11 -> 6
    assertEquals(11, policy.beforeBatch(due(2_000, 11)).target());
    assertEquals(11, policy.beforeBatch(due(2_000, 11)).target());
    Decision down = policy.beforeBatch(due(2_000, 11));
    assertEquals(6, down.target(), down.reason());
    assertEquals(5, down.remove());
    // a batch back above the margin restarts the count
    policy.batchCompleted(ran(2_000, 6));
    assertEquals(6, policy.beforeBatch(due(2_000, 6)).target());
    assertEquals(6, policy.beforeBatch(due(4_000, 6)).target());
    assertEquals(6, policy.beforeBatch(due(2_000, 6)).target());
    assertEquals(6, policy.beforeBatch(due(2_000, 6)).target());
    Decision again = policy.beforeBatch(due(2_000, 6));
    assertEquals(3, again.target(), again.reason());
    assertEquals(3, again.remove());
  }

  @Test
  void batchesThatSawExecutorsChangeAreNotMeasured() {
    for (int i = 0; i < 5; i++) {
      policy.batchCompleted(ran(2_000, 3));
    }
    for (int i = 0; i < 3; i++) {
      CompletedBatch b = ran(2_000, 3);
      // executors joined mid-batch: its times say nothing about the cost of a record
      policy.batchCompleted(new CompletedBatch(0, b.records(), b.processingMillis() * 4, 0,
          true, b.taskSeconds() * 10, 3, true, TASKS));
    }
    assertEquals(3, policy.beforeBatch(due(2_000, 3)).target());

    StreamingAllocationPolicy counting = StreamingAllocationPolicy.create(
        StreamingSettings.defaults(Policy.PROPORTIONAL, INTERVAL, 0, 50));
    for (int i = 0; i < 5; i++) {
      counting.batchCompleted(ran(2_000, 3));
    }
    for (int i = 0; i < 3; i++) {
      CompletedBatch b = ran(2_000, 3);
      counting.batchCompleted(new CompletedBatch(0, b.records(), b.processingMillis() * 4, 0,
          true, b.taskSeconds() * 10, 3, false, TASKS));
    }
    assertTrue(counting.beforeBatch(due(2_000, 3)).target() > 3);
  }

  @Test
  void neverZeroWhileBatchesWait() {
    // nothing measured, no executor, batches piling up
    Decision d = policy.beforeBatch(new BeforeBatch(10_000, 2_000, 5, 10_000, 0, 0, 0));
    assertEquals(1, d.target(), d.reason());
    // an input that went quiet sizes to nothing, yet one executor stays for the next batch
    for (int i = 0; i < 5; i++) {
      policy.batchCompleted(ran(2_000, 3));
    }
    for (int i = 0; i < 3; i++) {
      policy.batchCompleted(ran(0, 3));
    }
    int target = 3;
    for (int i = 0; i < 12; i++) {
      target = policy.beforeBatch(due(0, target)).target();
      assertTrue(target >= 1);
    }
    assertEquals(1, target);
  }

  /** Nothing measured yet but a late batch: its processing time over 0.9 x the interval. */
  @Test
  void aLateBatchBeforeAnyMeasurementScalesByTheProcessingRatio() {
    policy.batchCompleted(new CompletedBatch(0, 5_000, 4_000, 0, true, 7.0, 2, true, TASKS));
    Decision d = policy.beforeBatch(new BeforeBatch(0, 0, 2, 10_000, 2, 0, 2));
    // ceil(2 x 4000 / 1800) = 5
    assertEquals(5, d.target(), d.reason());
  }

  @Test
  void theSizeStaysWithinMinAndMax() {
    StreamingAllocationPolicy bounded = StreamingAllocationPolicy.create(
        StreamingSettings.defaults(Policy.PROPORTIONAL, INTERVAL, 2, 8));
    for (int i = 0; i < 5; i++) {
      bounded.batchCompleted(ran(2_000, 3));
    }
    assertEquals(8, bounded.beforeBatch(due(40_000, 3)).target());
    int target = 8;
    for (int i = 0; i < 12; i++) {
      bounded.batchCompleted(ran(10, target));
      target = bounded.beforeBatch(due(10, target)).target();
      assertTrue(target >= 2 && target <= 8, "target " + target);
    }
    assertEquals(2, target);
  }

  /** Waiting batches are caught up within catchUpTime, at most at full utilization. */
  @Test
  void waitingBatchesAddTheirRecordsOverTheCatchUpTime() {
    for (int i = 0; i < 5; i++) {
      policy.batchCompleted(ran(8_000, 11));
    }
    // 10 batches of 8000 due: 8000 + 72000 x 2 s / 30 s = 12800 a batch, 800 ms a task,
    // 1850 ms at full utilization = 2 waves: 16 executors (the steady size is 11)
    Decision d = policy.beforeBatch(new BeforeBatch(0, 0, 10, 80_000, 11, 0, 11));
    assertEquals(16, d.target(), d.reason());
    assertTrue(d.reason().contains("72000 waiting"), d.reason());
  }

  /**
   * 1500 records a batch (94 ms a task): with 150 ms of overhead 2 executors fit (16 waves =
   * 1500 ms of a 1665 ms budget), but on 2 executors the overhead is 700 ms (budget 1170 ms):
   * 3 are needed. The policy tries 2 once, goes back to 3, and stays there at this rate.
   */
  @Test
  void aSizeThatProvedTooSmallAtThisRateIsNotTriedAgain() {
    int target = 3;
    int reversals = 0;
    int lastStep = 0;
    StringBuilder targets = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      policy.batchCompleted(ran(1_500, target, target == 2 ? 700 : 150));
      Decision d = policy.beforeBatch(due(1_500, target));
      int step = Integer.signum(d.target() - target);
      if (step != 0) {
        reversals += lastStep != 0 && step != lastStep ? 1 : 0;
        lastStep = step;
      }
      target = d.target();
      targets.append(target).append(' ');
    }
    assertEquals(3, target, targets.toString());
    assertEquals(1, reversals, "one down and one up, then held: " + targets);
  }
}
