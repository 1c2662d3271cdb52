package dev.tide.bench.elasticity;

import dev.tide.bench.elasticity.Trace.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The load traces of the benchmark. Each is drawn from a seed: the shapes are fixed, the
 * widths, durations and arrival times vary with it, so a rule tuned to one draw shows on the
 * others.
 */
final class LoadTraces {
  private LoadTraces() {}

  static List<Trace> all(long seed) {
    return List.of(bursty(seed), ramp(seed), spike(seed), sine(seed), tiny(seed), dag(seed),
        interactive(seed), jobs(seed), longTail(seed), queue(seed));
  }

  /**
   * A multi-stage batch job whose width swings: wide stages (thousands of short tasks) separated
   * by narrow, long ones (skewed joins, a final merge), each stage waiting for the previous one.
   */
  static Trace bursty(long seed) {
    Random random = new Random(seed * 100 + 1);
    List<Stage> stages = List.of(
        new Stage(0, true, uniform(random, 2_000, 3_000)),
        new Stage(0, true, uniform(random, 24, 90_000)),
        new Stage(0, true, uniform(random, 3_000, 2_000)),
        new Stage(0, true, uniform(random, 8, 150_000)),
        new Stage(0, true, uniform(random, 1_000, 4_000)));
    return new Trace("bursty", "5 stages: 2000x3s, 24x90s, 3000x2s, 8x150s, 1000x4s", stages);
  }

  /** Demand rising linearly to 320 concurrent tasks over 2 minutes, then falling back. */
  static Trace ramp(long seed) {
    Random random = new Random(seed * 100 + 2);
    List<Stage> stages = new ArrayList<>();
    for (int second = 0; second < 240; second++) {
      double concurrency = 320.0 * (second < 120 ? second : 240 - second) / 120;
      addArrivals(stages, random, second, concurrency, 4_000);
    }
    return new Trace("ramp", "4 s tasks, demand 0 -> 320 -> 0 concurrent over 240 s", stages);
  }

  /** A small warm-up, a quiet minute (executors go), then 5120 tasks of 5 s at once. */
  static Trace spike(long seed) {
    Random random = new Random(seed * 100 + 3);
    List<Stage> stages = List.of(
        new Stage(0, false, uniform(random, 20, 2_000)),
        new Stage(90_000, false, uniform(random, 5_120, 5_000)));
    return new Trace("spike", "20x2s at 0 s, then 5120x5s at 90 s (0 -> 256 executors)",
        stages, 90_000, 256, 0);
  }

  /** Demand following a sine: 20 to 236 concurrent tasks, period 2 minutes, for 6 minutes. */
  static Trace sine(long seed) {
    Random random = new Random(seed * 100 + 4);
    List<Stage> stages = new ArrayList<>();
    for (int second = 0; second < 360; second++) {
      double concurrency = 128 + 108 * Math.sin(2 * Math.PI * second / 120.0);
      addArrivals(stages, random, second, concurrency, 3_000);
    }
    return new Trace("sine", "3 s tasks, demand 20..236 concurrent, period 120 s", stages);
  }

  /** One job of four stages of tiny tasks (100-300 ms), 200 to 30,000 tasks each. */
  static Trace tiny(long seed) {
    Random random = new Random(seed * 100 + 5);
    List<Stage> stages = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int tasks = (int) logUniform(random, 200, 30_000);
      long[] durations = new long[tasks];
      for (int t = 0; t < tasks; t++) {
        durations[t] = 100 + random.nextInt(201);
      }
      stages.add(new Stage(0, true, durations));
    }
    return new Trace("tiny", "1 job, 4 stages of 200-30k tasks of 100-300 ms", stages);
  }

  /**
   * One job of eight stages, widths 20 to 4,000 tasks (log-uniform), lognormal durations (median
   * 1-20 s per stage, sigma 0.5), 2% stragglers 4-10x longer.
   */
  static Trace dag(long seed) {
    List<Stage> stages = lognormalJob(new Random(seed * 100 + 6), 8, 20, 4_000, 1_000, 20_000,
        0.02);
    return new Trace("dag", "1 job, 8 stages of 20-4000 tasks, lognormal 1-20 s, 2% stragglers",
        stages);
  }

  /**
   * Interactive sessions: bursts of 6-15 small jobs (1-3 stages of 8-200 tasks, lognormal median
   * 0.5-3 s), 1-10 s apart, the bursts separated by idle gaps of 40-120 s.
   */
  static Trace interactive(long seed) {
    Random random = new Random(seed * 100 + 7);
    List<Stage> stages = new ArrayList<>();
    long at = 0;
    for (int burst = 0; burst < 8; burst++) {
      int jobs = 6 + random.nextInt(10);
      for (int j = 0; j < jobs; j++) {
        int stageCount = 1 + random.nextInt(3);
        for (int s = 0; s < stageCount; s++) {
          stages.add(new Stage(at, s > 0, lognormalStage(random,
              (int) logUniform(random, 8, 200), logUniform(random, 500, 3_000), 0.5, 0)));
        }
        at += 1_000 + random.nextInt(9_001);
      }
      at += 40_000 + random.nextInt(80_001);
    }
    return new Trace("interactive", "8 bursts of 6-15 jobs (1-3 stages, 8-200 tasks, 0.5-3 s),"
        + " 1-10 s apart; idle gaps 40-120 s", stages);
  }

  /**
   * Batch jobs arriving at random (exponential gaps, mean 30 s) for ten minutes, each 2-4 stages
   * of 50-1,500 tasks, lognormal median 2-10 s; they overlap.
   */
  static Trace jobs(long seed) {
    Random random = new Random(seed * 100 + 8);
    List<Stage> stages = new ArrayList<>();
    long at = 0;
    while (at < 600_000) {
      int stageCount = 2 + random.nextInt(3);
      for (int s = 0; s < stageCount; s++) {
        stages.add(new Stage(at, s > 0, lognormalStage(random,
            (int) logUniform(random, 50, 1_500), logUniform(random, 2_000, 10_000), 0.5, 0.01)));
      }
      at += Math.round(-30_000 * Math.log(1 - random.nextDouble()));
    }
    return new Trace("jobs", "jobs of 2-4 stages (50-1500 tasks, 2-10 s) arriving every 30 s"
        + " on average for 10 min", stages);
  }

  /** One job of three stages of 2,000 tasks with Pareto durations (alpha 1.3, from 1 s). */
  static Trace longTail(long seed) {
    Random random = new Random(seed * 100 + 9);
    List<Stage> stages = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      long[] durations = new long[2_000];
      for (int t = 0; t < durations.length; t++) {
        double pareto = 1_000 / Math.pow(1 - random.nextDouble(), 1 / 1.3);
        durations[t] = Math.round(Math.min(pareto, 300_000));
      }
      stages.add(new Stage(0, true, durations));
    }
    return new Trace("longtail", "1 job, 3 stages of 2000 tasks, Pareto(1.3) from 1 s, cap 300 s",
        stages);
  }

  /**
   * A queue with less headroom than demand: six stages of 300-3,000 tasks (lognormal median
   * 2-8 s) on a queue that holds 64 executors.
   */
  static Trace queue(long seed) {
    List<Stage> stages = lognormalJob(new Random(seed * 100 + 10), 6, 300, 3_000, 2_000, 8_000,
        0.01);
    return new Trace("queue", "1 job, 6 stages of 300-3000 tasks (2-8 s) on a queue of 64",
        stages, -1, 0, 64);
  }

  /**
   * One job of {@code count} stages behind each other, each of a log-uniform width and median
   * task time, lognormal durations (sigma 0.5) with a fraction of stragglers.
   */
  private static List<Stage> lognormalJob(Random random, int count, int minTasks, int maxTasks,
      double minMedianMillis, double maxMedianMillis, double stragglers) {
    List<Stage> stages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      stages.add(new Stage(0, true, lognormalStage(random,
          (int) logUniform(random, minTasks, maxTasks),
          logUniform(random, minMedianMillis, maxMedianMillis), 0.5, stragglers)));
    }
    return stages;
  }

  /** Arrivals in one second that keep {@code concurrency} tasks of {@code millis} running. */
  static void addArrivals(List<Stage> stages, Random random, int second,
      double concurrency, long millis) {
    int count = (int) Math.round(concurrency * 1000.0 / millis);
    if (count > 0) {
      stages.add(new Stage(second * 1000L, false, uniform(random, count, millis)));
    }
  }

  /** {@code count} durations of {@code millis} +-20%, uniformly. */
  static long[] uniform(Random random, int count, long millis) {
    long[] durations = new long[count];
    for (int i = 0; i < count; i++) {
      durations[i] = Math.round(millis * (0.8 + 0.4 * random.nextDouble()));
    }
    return durations;
  }

  /** Lognormal durations around {@code median}; a fraction of stragglers 4-10x longer. */
  static long[] lognormalStage(Random random, int count, double median, double sigma,
      double stragglers) {
    long[] durations = new long[count];
    for (int i = 0; i < count; i++) {
      double d = median * Math.exp(sigma * random.nextGaussian());
      if (random.nextDouble() < stragglers) {
        d *= 4 + 6 * random.nextDouble();
      }
      durations[i] = Math.max(50, Math.round(d));
    }
    return durations;
  }

  static double logUniform(Random random, double low, double high) {
    return Math.exp(Math.log(low) + random.nextDouble() * (Math.log(high) - Math.log(low)));
  }
}
