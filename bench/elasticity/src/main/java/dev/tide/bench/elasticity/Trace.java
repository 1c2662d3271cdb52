package dev.tide.bench.elasticity;

import java.util.List;

/**
 * A load trace: stages of tasks, each released at a time or when the previous stage completes.
 * Task durations are fixed when the trace is built, so every strategy runs the same tasks.
 *
 * @param rampFromMillis when to start the "time to {@code rampTo} executors" stopwatch, or -1
 * @param rampTo the executor count that stopwatch waits for (0 = not measured)
 */
record Trace(String name, String description, List<Stage> stages, long rampFromMillis,
    int rampTo) {

  /**
   * One stage.
   *
   * @param releaseAtMillis earliest submission time
   * @param afterPrevious also wait for the previous stage to complete (a job's stage barrier)
   * @param taskMillis one duration per task
   */
  record Stage(long releaseAtMillis, boolean afterPrevious, long[] taskMillis) {
    long workMillis() {
      long sum = 0;
      for (long t : taskMillis) {
        sum += t;
      }
      return sum;
    }
  }

  /** Sum of all task durations: the executor-milliseconds of a perfect (oracle) allocation. */
  long workMillis() {
    long sum = 0;
    for (Stage s : stages) {
      sum += s.workMillis();
    }
    return sum;
  }

  int tasks() {
    int n = 0;
    for (Stage s : stages) {
      n += s.taskMillis().length;
    }
    return n;
  }
}
