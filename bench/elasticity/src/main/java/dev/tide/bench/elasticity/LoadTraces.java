package dev.tide.bench.elasticity;

import dev.tide.bench.elasticity.Trace.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The load traces of the benchmark; deterministic (seeded) task durations. */
final class LoadTraces {
  private LoadTraces() {}

  /**
   * A multi-stage batch job whose width swings: wide stages (thousands of short tasks) separated
   * by narrow, long ones (skewed joins, a final merge), each stage waiting for the previous one.
   */
  static Trace bursty() {
    Random random = new Random(1);
    List<Stage> stages = List.of(
        new Stage(0, true, tasks(random, 2_000, 3_000)),
        new Stage(0, true, tasks(random, 24, 90_000)),
        new Stage(0, true, tasks(random, 3_000, 2_000)),
        new Stage(0, true, tasks(random, 8, 150_000)),
        new Stage(0, true, tasks(random, 1_000, 4_000)));
    return new Trace("bursty", "5 stages: 2000x3s, 24x90s, 3000x2s, 8x150s, 1000x4s", stages,
        -1, 0);
  }

  /** Demand rising linearly to 320 concurrent tasks over 2 minutes, then falling back. */
  static Trace ramp() {
    Random random = new Random(2);
    List<Stage> stages = new ArrayList<>();
    for (int second = 0; second < 240; second++) {
      double concurrency = 320.0 * (second < 120 ? second : 240 - second) / 120;
      addArrivals(stages, random, second, concurrency, 4_000);
    }
    return new Trace("ramp", "4 s tasks, demand 0 -> 320 -> 0 concurrent over 240 s", stages,
        -1, 0);
  }

  /** A small warm-up, a quiet minute (executors go), then 5120 tasks of 5 s at once. */
  static Trace spike() {
    Random random = new Random(3);
    List<Stage> stages = List.of(
        new Stage(0, false, tasks(random, 20, 2_000)),
        new Stage(90_000, false, tasks(random, 5_120, 5_000)));
    return new Trace("spike", "20x2s at 0 s, then 5120x5s at 90 s (0 -> 256 executors)",
        stages, 90_000, 256);
  }

  /** Demand following a sine: 20 to 236 concurrent tasks, period 2 minutes, for 6 minutes. */
  static Trace sine() {
    Random random = new Random(4);
    List<Stage> stages = new ArrayList<>();
    for (int second = 0; second < 360; second++) {
      double concurrency = 128 + 108 * Math.sin(2 * Math.PI * second / 120.0);
      addArrivals(stages, random, second, concurrency, 3_000);
    }
    return new Trace("sine", "3 s tasks, demand 20..236 concurrent, period 120 s", stages,
        -1, 0);
  }

  static List<Trace> all() {
    return List.of(bursty(), ramp(), spike(), sine());
  }

  /** Arrivals in one second that keep {@code concurrency} tasks of {@code millis} running. */
  private static void addArrivals(List<Stage> stages, Random random, int second,
      double concurrency, long millis) {
    int count = (int) Math.round(concurrency * 1000.0 / millis);
    if (count > 0) {
      stages.add(new Stage(second * 1000L, false, tasks(random, count, millis)));
    }
  }

  /** {@code count} durations of {@code millis} +-20%, uniformly. */
  private static long[] tasks(Random random, int count, long millis) {
    long[] durations = new long[count];
    for (int i = 0; i < count; i++) {
      durations[i] = Math.round(millis * (0.8 + 0.4 * random.nextDouble()));
    }
    return durations;
  }
}
