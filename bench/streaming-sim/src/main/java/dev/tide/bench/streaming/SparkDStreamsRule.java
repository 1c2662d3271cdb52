package dev.tide.bench.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;

/**
 * The behaviour of Spark's streaming dynamic allocation (SPARK-12133, the DStreams
 * {@code ExecutorAllocationManager}), written from its documented behaviour: on a timer every
 * {@code spark.streaming.dynamicAllocation.scalingInterval} (60 s), the mean processing time of
 * the batches completed since the last tick over the batch interval gives a ratio; at or above
 * {@code scalingUpRatio} (0.9) it asks for {@code max(round(ratio), 1)} executors more than are
 * registered; at or below {@code scalingDownRatio} (0.3) it kills one executor (the target drops
 * by one); nothing when no batch completed. Bounded by min and max executors; Spark's own default
 * minimum is {@code max(1, receivers)}, so 1 here.
 */
final class SparkDStreamsRule implements Strategy {
  static final long SCALING_INTERVAL_MILLIS = 60_000;
  static final double SCALING_UP_RATIO = 0.9;
  static final double SCALING_DOWN_RATIO = 0.3;

  private final long intervalMillis;
  private final int minExecutors;
  private final int maxExecutors;
  private long processingSum;
  private int completed;

  SparkDStreamsRule(long intervalMillis, int minExecutors, int maxExecutors) {
    this.intervalMillis = intervalMillis;
    this.minExecutors = Math.max(1, minExecutors);
    this.maxExecutors = maxExecutors;
  }

  @Override
  public Decision beforeBatch(BeforeBatch state) {
    return new Decision(state.target(), 0, "spark rule acts on its timer");
  }

  @Override
  public void batchCompleted(CompletedBatch batch) {
    processingSum += batch.processingMillis();
    completed++;
  }

  @Override
  public long nextTimerMillis(long nowMillis) {
    return (nowMillis / SCALING_INTERVAL_MILLIS + 1) * SCALING_INTERVAL_MILLIS;
  }

  @Override
  public Decision onTimer(Cluster cluster) {
    if (completed == 0) {
      return null;
    }
    double ratio = (double) processingSum / completed / intervalMillis;
    processingSum = 0;
    completed = 0;
    if (ratio >= SCALING_UP_RATIO) {
      int more = Math.max((int) Math.round(ratio), 1);
      int target = Math.max(minExecutors, Math.min(maxExecutors, cluster.executors() + more));
      return new Decision(target, 0, "ratio " + ratio + ": add " + more);
    }
    if (ratio <= SCALING_DOWN_RATIO && cluster.executors() > minExecutors) {
      return new Decision(cluster.target() - 1, 1, "ratio " + ratio + ": kill one");
    }
    return null;
  }
}
