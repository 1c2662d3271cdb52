package dev.tide.bench.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy;
import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;

/**
 * What sizes the executors in one run: told each completed batch and asked before each batch is
 * submitted, as the driver does with a {@link StreamingAllocationPolicy}; a strategy may also ask
 * to be woken on a timer of its own (Spark's rule, the oracle).
 */
interface Strategy {
  /** The cluster as a timer sees it. */
  record Cluster(long nowMillis, int executors, int idle, int starting, int target) {}

  Decision beforeBatch(BeforeBatch state);

  void batchCompleted(CompletedBatch batch);

  /** When to call {@link #onTimer} next (after {@code nowMillis}), or -1 for never. */
  default long nextTimerMillis(long nowMillis) {
    return -1;
  }

  /** A decision on the timer, or null for none. */
  default Decision onTimer(Cluster cluster) {
    return null;
  }

  /** Tide's real policy. */
  static Strategy of(StreamingAllocationPolicy policy) {
    return new Strategy() {
      @Override
      public Decision beforeBatch(BeforeBatch state) {
        return policy.beforeBatch(state);
      }

      @Override
      public void batchCompleted(CompletedBatch batch) {
        policy.batchCompleted(batch);
      }
    };
  }

  /** A fixed number of executors. */
  static Strategy fixed(int executors) {
    return new Strategy() {
      @Override
      public Decision beforeBatch(BeforeBatch state) {
        return new Decision(executors, 0, "static");
      }

      @Override
      public void batchCompleted(CompletedBatch batch) {}
    };
  }
}
