package dev.tide.bench.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;
import java.util.List;

/**
 * Knows the trace: every 100 ms it asks for the most executors any batch running now or due
 * within one container start needs, each batch's need being the fewest executors that process it
 * within the interval ({@link BatchModel#executorsNeeded}); executors beyond that go at once
 * (only idle ones, so no task is lost). It cannot foresee an executor loss.
 */
final class OracleStrategy implements Strategy {
  static final long TICK_MILLIS = 100;

  private final List<BatchModel.Batch> batches;
  private final int[] needed;
  private final long intervalMillis;
  private final long startLatencyMillis;

  OracleStrategy(BatchModel model, List<BatchModel.Batch> batches, long startLatencyMillis,
      int maxExecutors) {
    this.batches = batches;
    this.intervalMillis = model.intervalMillis();
    this.startLatencyMillis = startLatencyMillis;
    this.needed = new int[batches.size()];
    for (int i = 0; i < needed.length; i++) {
      needed[i] = model.executorsNeeded(batches.get(i), maxExecutors);
    }
  }

  /** What the first batch needs: the size every strategy starts at. */
  int initial() {
    return needed[0];
  }

  /** The most any batch needs: static allocation's size. */
  int peak() {
    int most = 0;
    for (int n : needed) {
      most = Math.max(most, n);
    }
    return most;
  }

  @Override
  public Decision beforeBatch(BeforeBatch state) {
    return new Decision(state.target(), 0, "oracle acts on its timer");
  }

  @Override
  public void batchCompleted(CompletedBatch batch) {}

  @Override
  public long nextTimerMillis(long nowMillis) {
    return nowMillis + TICK_MILLIS;
  }

  @Override
  public Decision onTimer(Cluster cluster) {
    long now = cluster.nowMillis();
    int most = 1;
    for (int i = 0; i < batches.size(); i++) {
      long due = batches.get(i).dueMillis();
      if (due > now - intervalMillis && due <= now + startLatencyMillis + TICK_MILLIS) {
        most = Math.max(most, needed[i]);
      }
    }
    int surplus = Math.max(0, cluster.executors() - most);
    return new Decision(most, Math.min(surplus, cluster.idle()), "oracle");
  }
}
