package dev.tide.bench.elasticity;

import java.util.ArrayList;
import java.util.List;

/**
 * A load trace: stages of tasks, each released at a time or when the previous stage completes.
 * A stage released at a time starts a job; the stages behind it ({@code afterPrevious}) are that
 * job's later stages, which its driver knows of from the start (its plan). Task durations are
 * fixed when the trace is built, so every strategy runs the same tasks.
 *
 * @param rampFromMillis when to start the "time to {@code rampTo} executors" stopwatch, or -1
 * @param rampTo the executor count that stopwatch waits for (0 = not measured)
 * @param queueCapacity executors the queue can hold for this trace, or 0 for the cluster's
 */
record Trace(String name, String description, List<Stage> stages, long rampFromMillis,
    int rampTo, int queueCapacity) {

  Trace(String name, String description, List<Stage> stages) {
    this(name, description, stages, -1, 0, 0);
  }

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

  /** For each stage, the index of its job's first stage. */
  int[] jobOf() {
    int[] job = new int[stages.size()];
    for (int i = 0; i < job.length; i++) {
      job[i] = i > 0 && stages.get(i).afterPrevious() ? job[i - 1] : i;
    }
    return job;
  }

  /** The first stage of each job. */
  List<Integer> jobStarts() {
    List<Integer> starts = new ArrayList<>();
    int[] job = jobOf();
    for (int i = 0; i < job.length; i++) {
      if (job[i] == i) {
        starts.add(i);
      }
    }
    return starts;
  }

  /** Independent jobs arrive over time: the makespan is then set by the arrivals. */
  boolean hasArrivals() {
    return jobStarts().size() > 1;
  }
}
