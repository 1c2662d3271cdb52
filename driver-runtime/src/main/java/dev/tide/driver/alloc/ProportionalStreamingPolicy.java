package dev.tide.driver.alloc;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.DoubleStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tide's streaming rule ({@code policy=proportional}): sizes the executors from what a record
 * costs, not from how late the last batch was (after DS2, Flink's autoscaler and Dataflow).
 *
 * <p>Per completed batch that ran on one set of executors it measures the busy slot-seconds per
 * record ({@code taskSeconds / records}) and the overhead: the part of the processing time the
 * tasks do not explain (driver work, a narrow stage), {@code processing - waves x taskSeconds /
 * tasks} with {@code waves = ceil(tasks / slots)}, or {@code processing - taskSeconds / slots}
 * when the task count is unknown. Both are medians of the last {@value #MEASURED} usable batches,
 * so one slow batch (a GC pause) does not move them. Before each batch:
 * <pre>
 *   records   = per interval: the newest due batch's, or the recent completed ones' if more
 *   budget    = targetUtilization x (interval - overhead)         (overhead: at most interval / 2)
 *   size      = ceil(records x cost / (slots per executor x budget))
 * </pre>
 * With the task count known, the size is instead the fewest executors whose waves of tasks fit
 * the budget: at most {@code floor(budget / task time)} waves, so {@code ceil(tasks / (waves x
 * slots))} executors (never more than one slot per task). Waiting batches add {@code their
 * records x interval / catchUpTime} to the records; that catch-up may use the headroom {@code
 * targetUtilization} leaves (it is sized at full utilization, and the larger size wins).
 *
 * <p>The target rises to the size in one step. It falls only after the size stayed below
 * {@code target x (1 - scaleDownMargin)} for {@code scaleDownBatches} batches in a row, and
 * never while batches wait; then to the size, by at most {@code maxScaleDownStep} of the target
 * (the records per interval already lag a fall: the mean of the recent batches counts). The
 * overhead often grows as executors go (fewer executors, more per-executor work in the driver's
 * share): a scale-down is sized with the largest overhead measured on any count between the new
 * size and the target, so a size that once proved too small at this rate is not tried again and
 * the target does not swing back and forth at a constant rate. With
 * nothing measured yet it keeps the target, or, when a batch was late, scales it by that batch's
 * processing time over {@code targetUtilization x interval}. It never asks for fewer than {@code max(minExecutors, 1)}: a streaming job always
 * has a next batch, and with no executor no batch completes to tell it otherwise (Spark's
 * DStreams rule waits at zero forever, SPARK-42972).
 *
 * <p>Not thread-safe: one thread calls it (the driver's streaming loop).
 */
final class ProportionalStreamingPolicy implements StreamingAllocationPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(ProportionalStreamingPolicy.class);
  /** Usable batches whose measurements are kept (their median is used). */
  static final int MEASURED = 5;
  /** Completed batches whose records give the recent input rate. */
  static final int RECENT = 3;
  /** Overheads kept per executor count (their median is that count's overhead). */
  static final int MEASURED_PER_COUNT = 3;

  /** One usable batch: slot-seconds per record, time the tasks do not explain, task count. */
  private record Measurement(double slotSecondsPerRecord, double overheadMillis, int tasks) {}

  private record Sizing(int size, String why) {}

  private final StreamingSettings settings;
  private final int slots;
  private final Deque<Measurement> measured = new ArrayDeque<>();
  private final Deque<Long> recentRecords = new ArrayDeque<>();
  /** Per executor count the batches ran on: their last {@value #MEASURED_PER_COUNT} overheads. */
  private final Map<Integer, Deque<Double>> overheadOn = new HashMap<>();
  private CompletedBatch last;
  /** Consecutive evaluations whose size was below the target by the margin. */
  private int belowMargin;

  ProportionalStreamingPolicy(StreamingSettings settings) {
    this.settings = settings;
    this.slots = settings.tasksPerExecutor();
  }

  @Override
  public void batchCompleted(CompletedBatch batch) {
    last = batch;
    recentRecords.addLast(batch.records());
    while (recentRecords.size() > RECENT) {
      recentRecords.removeFirst();
    }
    if (batch.executorsChanged() || batch.executorsAtStart() < 1 || batch.records() <= 0
        || batch.taskSeconds() <= 0) {
      return;
    }
    double taskMillis = batch.taskSeconds() * 1000;
    double tasksSpan = batch.tasks() > 0
        ? waves(batch.tasks(), batch.executorsAtStart()) * taskMillis / batch.tasks()
        : taskMillis / ((double) batch.executorsAtStart() * slots);
    double overhead = Math.max(0, batch.processingMillis() - tasksSpan);
    measured.addLast(new Measurement(batch.taskSeconds() / batch.records(), overhead,
        batch.tasks()));
    while (measured.size() > MEASURED) {
      measured.removeFirst();
    }
    Deque<Double> onCount = overheadOn.computeIfAbsent(batch.executorsAtStart(),
        n -> new ArrayDeque<>());
    onCount.addLast(overhead);
    while (onCount.size() > MEASURED_PER_COUNT) {
      onCount.removeFirst();
    }
  }

  @Override
  public Decision beforeBatch(BeforeBatch state) {
    Decision d = decide(state);
    if (settings.debug()) {
      LOG.info("proportional before batch {}: executors {}, starting {}, target {}, waiting {}"
          + " batches ({} records), measured {}, recent records {} -> target {}, remove {}: {}",
          state.batchTimeMillis(), state.executors(), state.starting(), state.target(),
          state.waitingBatches(), state.waitingRecords(), measured, recentRecords, d.target(),
          d.remove(), d.reason());
    }
    return d;
  }

  private Decision decide(BeforeBatch state) {
    int target = clamp(state.target());
    boolean catchingUp = state.waitingBatches() > 1;
    Sizing sizing = measured.isEmpty() ? byProcessingRatio(target, catchingUp)
        : byCost(state, target);
    if (sizing.size() > target) {
      belowMargin = 0;
      return new Decision(sizing.size(), 0, "scale up " + target + " -> " + sizing.size() + ": "
          + sizing.why());
    }
    if (catchingUp || sizing.size() >= target * (1 - settings.scaleDownMargin())) {
      belowMargin = 0;
      return new Decision(target, 0, "keep " + target + ": " + sizing.why());
    }
    if (++belowMargin < settings.scaleDownBatches()) {
      return new Decision(target, 0, "keep " + target + " (below by the margin, batch "
          + belowMargin + " of " + settings.scaleDownBatches() + "): " + sizing.why());
    }
    belowMargin = 0;
    int boundedStep = Math.max(1, (int) Math.floor(target * settings.maxScaleDownStep()));
    int lower = clamp(Math.max(sizing.size(), target - boundedStep));
    int remove = Math.max(0, state.executors() - lower);
    return new Decision(lower, remove, "scale down " + target + " -> " + lower + ": "
        + sizing.why());
  }

  /**
   * The size from the measured cost; below {@code target}, checked again with the largest
   * overhead measured on the counts from that size up to the target, when one is larger.
   */
  private Sizing byCost(BeforeBatch state, int target) {
    double overhead = median(measured.stream().mapToDouble(Measurement::overheadMillis));
    Sizing sizing = byCost(state, overhead, "");
    if (sizing.size() >= target) {
      return sizing;
    }
    int worstCount = -1;
    double worst = overhead;
    for (int n = sizing.size(); n < target; n++) {
      Deque<Double> onCount = overheadOn.get(n);
      if (onCount != null) {
        double there = median(onCount.stream().mapToDouble(Double::doubleValue));
        if (there > worst) {
          worst = there;
          worstCount = n;
        }
      }
    }
    return worstCount < 0 ? sizing : byCost(state, worst, String.format(Locale.ROOT,
        " (as measured on %d executors)", worstCount));
  }

  private Sizing byCost(BeforeBatch state, double measuredOverhead, String overheadSource) {
    double cost = median(measured.stream().mapToDouble(Measurement::slotSecondsPerRecord));
    double interval = settings.intervalMillis();
    double overhead = Math.min(measuredOverhead, interval / 2);
    int tasks = measured.peekLast().tasks();
    int waiting = Math.max(1, state.waitingBatches());
    double newest = state.waitingRecords() >= 0 ? (double) state.waitingRecords() / waiting : -1;
    double recent = recentRecords.stream().mapToLong(Long::longValue).average().orElse(0);
    double records = Math.max(newest, recent);
    double backlog = state.waitingRecords() >= 0
        ? state.waitingRecords() - newest : (waiting - 1) * records;
    double seconds = (interval - overhead) / 1000;
    int steady = executorsFor(records * cost, tasks, settings.targetUtilization() * seconds);
    int catchUp = backlog <= 0 ? 0 : executorsFor(
        (records + backlog * interval / settings.catchUpMillis()) * cost, tasks, seconds);
    int size = clamp(Math.max(steady, catchUp));
    String why = String.format(Locale.ROOT, "%.0f records/batch%s x %.3g slot-s/record,"
        + " overhead %.0f ms%s%s -> %d", records, backlog > 0
            ? String.format(Locale.ROOT, " + %.0f waiting", backlog) : "", cost, overhead,
        overheadSource, tasks > 0 ? ", " + tasks + " tasks" : "", size);
    return new Sizing(size, why);
  }

  /**
   * Executors that run {@code slotSeconds} of tasks within {@code budgetSeconds}: by waves of
   * the {@code tasks} tasks when their count is known, else spread evenly.
   */
  private int executorsFor(double slotSeconds, int tasks, double budgetSeconds) {
    if (tasks <= 0) {
      return (int) Math.ceil(slotSeconds / slots / budgetSeconds - 1e-9);
    }
    double taskSeconds = slotSeconds / tasks;
    long fittingWaves = Math.min(tasks, (long) Math.floor(budgetSeconds / taskSeconds + 1e-9));
    long wavesNeeded = Math.max(1, fittingWaves);
    return (int) ((tasks + wavesNeeded * slots - 1) / (wavesNeeded * slots));
  }

  /** Waves of {@code tasks} tasks on {@code executors} executors. */
  private long waves(int tasks, int executors) {
    long slotsThere = (long) executors * slots;
    return (tasks + slotsThere - 1) / slotsThere;
  }

  /**
   * Before any usable measurement: the last batch's processing time against the interval the
   * target utilization allows, when it was late or batches wait; otherwise the target as is.
   */
  private Sizing byProcessingRatio(int target, boolean catchingUp) {
    if (last == null || !(last.delayed() || catchingUp)) {
      return new Sizing(target, "nothing measured yet");
    }
    double ratio = last.processingMillis()
        / (settings.targetUtilization() * settings.intervalMillis());
    int ranOn = Math.max(1, last.executorsAtStart());
    int size = clamp((int) Math.ceil(ranOn * ratio - 1e-9));
    return new Sizing(Math.max(size, target), String.format(Locale.ROOT, "nothing measured;"
        + " a batch took %d ms of %d ms on %d executors -> %d", last.processingMillis(),
        settings.intervalMillis(), ranOn, size));
  }

  private static double median(DoubleStream values) {
    double[] sorted = values.sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** Within [max(minExecutors, 1), maxExecutors]. */
  private int clamp(int n) {
    return Math.max(Math.max(settings.minExecutors(), 1), Math.min(settings.maxExecutors(), n));
  }
}
