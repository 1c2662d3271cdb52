package dev.tide.driver.alloc;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source design's streaming rule ({@code policy=seed}) with one change, below (DESIGN.md
 * "Allocation policy (streaming micro-batch)"): nothing until {@code delay.rounds} batches were submitted;
 * then, before each batch, {@code maxExecutors} at once when the last completed batch was
 * delayed; otherwise {@code totalRemove = round(current x ((interval - processing) / interval -
 * reserveRate))} with processing the mean of the last {@code rememberBatchSize} batches, and
 * {@code ceil(totalRemove / releaseRounds)} of them removed this round, never below
 * {@code minExecutors}.
 *
 * <p>The change: it never removes the last executor ({@code minExecutors} 0 is read as 1), so
 * the source's last step, to 0, never happens. A streaming job always has a next batch; with no executor that batch never ends,
 * no batch completes, and a rule driven by completed batches would wait at zero forever (as
 * Spark's DStreams rule does, SPARK-42972).
 */
final class SeedStreamingPolicy implements StreamingAllocationPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(SeedStreamingPolicy.class);

  private final StreamingSettings settings;
  private final Deque<CompletedBatch> remembered = new ArrayDeque<>();
  private int submitted;

  SeedStreamingPolicy(StreamingSettings settings) {
    this.settings = settings;
  }

  @Override
  public void batchCompleted(CompletedBatch batch) {
    remembered.addLast(batch);
    while (remembered.size() > settings.rememberBatchSize()) {
      remembered.removeFirst();
    }
  }

  @Override
  public Decision beforeBatch(BeforeBatch state) {
    submitted++;
    Decision d = decide(state);
    if (settings.debug()) {
      LOG.info("seed before batch {} (#{}): executors {}, starting {}, target {}, remembered"
          + " processing {} -> target {}, remove {}: {}", state.batchTimeMillis(), submitted,
          state.executors(), state.starting(), state.target(), remembered, d.target(), d.remove(),
          d.reason());
    }
    return d;
  }

  private Decision decide(BeforeBatch state) {
    int current = state.executors();
    int floor = Math.max(settings.minExecutors(), 1);
    if (submitted <= settings.delayRounds() || remembered.isEmpty()) {
      int initial = Math.max(floor, settings.initialExecutors());
      return new Decision(clamp(Math.max(state.target(), initial)), 0, "waiting: batch "
          + submitted + " of delay.rounds " + settings.delayRounds());
    }
    int kept = clamp(Math.max(state.target(), floor));
    CompletedBatch last = remembered.peekLast();
    if (last.delayed()) {
      return new Decision(settings.maxExecutors(), 0, "batch " + last.batchTimeMillis()
          + " was delayed (processing " + last.processingMillis() + " ms, scheduling delay "
          + last.schedulingDelayMillis() + " ms, interval " + settings.intervalMillis()
          + " ms): maxExecutors at once");
    }
    double processing = 0;
    for (CompletedBatch b : remembered) {
      processing += b.processingMillis();
    }
    processing /= remembered.size();
    double interval = settings.intervalMillis();
    long totalRemove = Math.round(current * ((interval - processing) / interval
        - settings.reserveRate()));
    if (totalRemove <= 0) {
      return new Decision(kept, 0, String.format("processing %.0f ms of %d ms: keep %d",
          processing, settings.intervalMillis(), current));
    }
    int removeThisRound = (int) ((totalRemove + settings.releaseRounds() - 1)
        / settings.releaseRounds());
    int remove = Math.max(0, Math.min(removeThisRound, current - floor));
    int target = clamp(current - remove);
    return new Decision(target, remove, String.format("processing %.0f ms of %d ms: surplus %d,"
        + " remove %d this round", processing, settings.intervalMillis(), totalRemove, remove));
  }

  /** Within [max(minExecutors, 1), maxExecutors]. */
  private int clamp(int n) {
    return Math.max(Math.max(settings.minExecutors(), 1), Math.min(settings.maxExecutors(), n));
  }
}
