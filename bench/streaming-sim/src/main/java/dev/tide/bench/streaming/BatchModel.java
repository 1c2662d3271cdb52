package dev.tide.bench.streaming;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The simulated job: one batch every interval over the records that arrived in it, split evenly
 * over a fixed number of map tasks; a task takes {@code records x cost + fixed} (x the slow
 * factor, +- jitter); a batch takes a fixed driver overhead (planning, commit: it does not
 * shrink with executors and is not task time) plus its tasks run in waves over the task slots.
 *
 * @param millisPerRecord busy executor-milliseconds one record costs
 * @param taskFixedMillis per task (launch, deserialisation), counted as task time
 * @param overheadMillis per batch, on the driver
 * @param jitter each task's duration is multiplied by {@code 1 + u}, u uniform in +-jitter
 */
record BatchModel(long intervalMillis, int tasks, double millisPerRecord, long taskFixedMillis,
    long overheadMillis, int slotsPerExecutor, double jitter, long seed) {

  /**
   * One batch, fixed before any strategy runs so that every strategy processes the same batches.
   *
   * @param dueMillis its scheduled time (the end of its interval)
   */
  record Batch(int index, long dueMillis, long records, long[] taskMillis) {}

  /** The batches of a trace, due at interval, 2 x interval, ... up to its length. */
  List<Batch> batches(RateTrace trace) {
    SplittableRandom random = new SplittableRandom(seed ^ trace.name().hashCode());
    List<Batch> batches = new ArrayList<>();
    for (int k = 1; k * intervalMillis <= trace.lengthMillis(); k++) {
      long due = k * intervalMillis;
      double records = integrate(trace, due - intervalMillis, due)
          * (1 + trace.noise() * (2 * random.nextDouble() - 1));
      long total = Math.round(records);
      double slow = trace.slowBatchAtMillis() == due ? RateTrace.SLOW_FACTOR : 1;
      long[] taskMillis = new long[tasks];
      for (int t = 0; t < tasks; t++) {
        long share = total / tasks + (t < total % tasks ? 1 : 0);
        double millis = (share * millisPerRecord + taskFixedMillis) * slow
            * (1 + jitter * (2 * random.nextDouble() - 1));
        taskMillis[t] = Math.max(1, Math.round(millis));
      }
      batches.add(new Batch(k - 1, due, total, taskMillis));
    }
    return batches;
  }

  /**
   * Processing time of a batch on {@code executors} executors present throughout: the overhead
   * plus the tasks, in order, each on the first free slot (what the simulated scheduler does).
   */
  long processingMillis(Batch batch, int executors) {
    PriorityQueue<Long> freeAt = new PriorityQueue<>();
    for (int s = 0; s < Math.max(1, executors) * slotsPerExecutor; s++) {
      freeAt.add(0L);
    }
    long end = 0;
    for (long t : batch.taskMillis()) {
      long finish = freeAt.poll() + t;
      end = Math.max(end, finish);
      freeAt.add(finish);
    }
    return overheadMillis + end;
  }

  /**
   * The fewest executors (up to {@code max}) that process the batch within the interval, or
   * {@code max} if none do.
   */
  int executorsNeeded(Batch batch, int max) {
    for (int e = 1; e <= max; e++) {
      if (processingMillis(batch, e) < intervalMillis) {
        return e;
      }
    }
    return max;
  }

  private static double integrate(RateTrace trace, long fromMillis, long toMillis) {
    int steps = 200;
    double width = (toMillis - fromMillis) / 1000.0 / steps;
    double sum = 0;
    for (int i = 0; i < steps; i++) {
      sum += trace.recordsPerSecond().applyAsDouble(fromMillis / 1000.0 + (i + 0.5) * width);
    }
    return sum * width;
  }
}
