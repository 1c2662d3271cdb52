package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;
import dev.tide.driver.alloc.StreamingSettings.Policy;
import org.junit.jupiter.api.Test;

class SeedStreamingPolicyTest {

  private static StreamingSettings seed(long interval, int min, int max, int releaseRounds,
      int rememberBatchSize, int delayRounds, double reserveRate) {
    return new StreamingSettings(true, Policy.SEED, interval, min, max, Math.max(min, 1), 1,
        false, releaseRounds, rememberBatchSize, delayRounds, reserveRate, 0.9, 60_000, 0.2, 3,
        0.5);
  }

  private static CompletedBatch batch(long processingMillis, boolean delayed, int executors) {
    return new CompletedBatch(0, 1_000, processingMillis, 0, delayed, 1.0, executors, false);
  }

  private static BeforeBatch before(int executors) {
    return new BeforeBatch(0, 0, 1, 1_000, executors, 0, executors);
  }

  /**
   * totalRemove = round(E x ((I - P) / I - reserveRate)), removed ceil(totalRemove /
   * releaseRounds) at a time; expectations worked out by hand.
   */
  @Test
  void removalFollowsTheFormula() {
    // executors, interval ms, processing ms, reserveRate, releaseRounds, expected removal
    double[][] rows = {
        {10, 2000, 500, 0.2, 5, 2},   // 10 x (0.75 - 0.2) = 5.5 -> 6; ceil(6 / 5) = 2
        {10, 2000, 1600, 0.2, 5, 0},  // 10 x (0.2 - 0.2) = 0: nothing
        {20, 1000, 100, 0.1, 1, 16},  // 20 x (0.9 - 0.1) = 16, all at once
        {4, 2000, 1000, 0.2, 5, 1},   // 4 x 0.3 = 1.2 -> 1; ceil(1 / 5) = 1 (the source: 0)
        {50, 5000, 1000, 0.0, 3, 14}, // 50 x 0.8 = 40; ceil(40 / 3) = 14
        {3, 2000, 1900, 0.2, 5, 0},   // 3 x (0.05 - 0.2) < 0: nothing
        {8, 2000, 1400, 0.2, 2, 1},   // 8 x 0.1 = 0.8 -> 1; ceil(1 / 2) = 1
        {7, 3000, 600, 0.25, 4, 1},   // 7 x (0.8 - 0.25) = 3.85 -> 4; ceil(4 / 4) = 1
    };
    for (double[] r : rows) {
      int executors = (int) r[0];
      StreamingAllocationPolicy policy = StreamingAllocationPolicy.create(
          seed((long) r[1], 0, 100, (int) r[4], 1, 0, r[3]));
      policy.batchCompleted(batch((long) r[2], false, executors));
      Decision d = policy.beforeBatch(before(executors));
      String row = java.util.Arrays.toString(r);
      assertEquals((int) r[5], d.remove(), row + ": " + d.reason());
      assertEquals(executors - (int) r[5], d.target(), row + ": " + d.reason());
    }
  }

  @Test
  void nothingHappensUntilDelayRoundsBatchesWereSubmitted() {
    StreamingAllocationPolicy policy = StreamingAllocationPolicy.create(
        seed(2_000, 0, 20, 5, 1, 3, 0.2));
    for (int submitted = 1; submitted <= 3; submitted++) {
      policy.batchCompleted(batch(5_000, true, 2));
      Decision d = policy.beforeBatch(before(2));
      assertEquals(2, d.target(), "batch " + submitted + ": " + d.reason());
      assertEquals(0, d.remove());
    }
    policy.batchCompleted(batch(5_000, true, 2));
    assertEquals(20, policy.beforeBatch(before(2)).target());
  }

  @Test
  void processingTimeIsTheMeanOfTheLastRememberBatchSizeBatches() {
    StreamingAllocationPolicy policy = StreamingAllocationPolicy.create(
        seed(2_000, 0, 20, 1, 3, 0, 0.2));
    policy.batchCompleted(batch(400, false, 10));
    policy.batchCompleted(batch(800, false, 10));
    policy.batchCompleted(batch(1_200, false, 10));
    // mean 800: 10 x (0.6 - 0.2) = 4
    assertEquals(4, policy.beforeBatch(before(10)).remove());
    policy.batchCompleted(batch(1_800, false, 10));
    // 400 forgotten; mean 1266.7: 10 x (0.3667 - 0.2) = 1.67 -> 2
    assertEquals(2, policy.beforeBatch(before(10)).remove());
  }

  @Test
  void aDelayedBatchAsksForMaxExecutorsAtOnce() {
    StreamingAllocationPolicy policy = StreamingAllocationPolicy.create(
        seed(2_000, 3, 7, 5, 1, 0, 0.2));
    policy.batchCompleted(batch(2_500, true, 4));
    Decision d = policy.beforeBatch(before(4));
    assertEquals(7, d.target());
    assertEquals(0, d.remove());
  }

  @Test
  void neverBelowMinExecutorsNorZero() {
    StreamingAllocationPolicy withMin = StreamingAllocationPolicy.create(
        seed(2_000, 4, 20, 1, 1, 0, 0.0));
    withMin.batchCompleted(batch(10, false, 5));
    Decision d = withMin.beforeBatch(before(5));
    assertEquals(4, d.target(), d.reason());
    assertEquals(1, d.remove());

    // minExecutors 0: the last executor stays, or no batch would ever complete again
    StreamingAllocationPolicy noMin = StreamingAllocationPolicy.create(
        seed(2_000, 0, 20, 1, 1, 0, 0.0));
    noMin.batchCompleted(batch(10, false, 1));
    d = noMin.beforeBatch(before(1));
    assertEquals(1, d.target(), d.reason());
    assertEquals(0, d.remove());
    d = noMin.beforeBatch(new BeforeBatch(0, 0, 3, 3_000, 0, 0, 0));
    assertEquals(1, d.target(), d.reason());
  }
}
