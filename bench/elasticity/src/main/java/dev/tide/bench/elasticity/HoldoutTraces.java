package dev.tide.bench.elasticity;

import static dev.tide.bench.elasticity.LoadTraces.addArrivals;
import static dev.tide.bench.elasticity.LoadTraces.logUniform;
import static dev.tide.bench.elasticity.LoadTraces.lognormalStage;

import dev.tide.bench.elasticity.Trace.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A second trace set ({@code --holdout}), written after the policy's rules and defaults were
 * settled on {@link LoadTraces}, to see them on shapes they were not tuned on: a map-reduce-write
 * pipeline, iterations of a wide stage and a one-task aggregate, a stage skewed by a few huge
 * tasks, a stream of jobs of every size, long narrow stages, demand in steps, and jobs on a small
 * queue. Seeded like the main set.
 */
final class HoldoutTraces {
  private HoldoutTraces() {}

  static List<Trace> all(long seed) {
    return List.of(etl(seed), iterative(seed), skew(seed), mixed(seed), narrowLong(seed),
        steps(seed), queueJobs(seed));
  }

  /** Map (2,000-8,000 tasks of 2-6 s), reduce (100-400 of 10-40 s), write (20-60 of 3-8 s). */
  static Trace etl(long seed) {
    Random r = new Random(seed * 100 + 31);
    List<Stage> stages = List.of(
        new Stage(0, true, lognormalStage(r, (int) logUniform(r, 2_000, 8_000),
            logUniform(r, 2_000, 6_000), 0.4, 0.01)),
        new Stage(0, true, lognormalStage(r, (int) logUniform(r, 100, 400),
            logUniform(r, 10_000, 40_000), 0.4, 0.02)),
        new Stage(0, true, lognormalStage(r, (int) logUniform(r, 20, 60),
            logUniform(r, 3_000, 8_000), 0.3, 0)));
    return new Trace("etl", "map 2000-8000 x 2-6 s, reduce 100-400 x 10-40 s, write 20-60 x"
        + " 3-8 s", stages);
  }

  /**
   * 15-25 iterations, in one plan, of a wide stage (200-400 tasks of 0.5-2 s) and a one-task
   * aggregate of 2-6 s.
   */
  static Trace iterative(long seed) {
    Random r = new Random(seed * 100 + 32);
    List<Stage> stages = new ArrayList<>();
    int width = (int) logUniform(r, 200, 400);
    double median = logUniform(r, 500, 2_000);
    int iterations = 15 + r.nextInt(11);
    for (int i = 0; i < iterations; i++) {
      stages.add(new Stage(0, true, lognormalStage(r, width, median, 0.3, 0)));
      stages.add(new Stage(0, true, lognormalStage(r, 1, logUniform(r, 2_000, 6_000), 0.2, 0)));
    }
    return new Trace("iterative", "15-25 x (200-400 tasks of 0.5-2 s, then 1 task of 2-6 s)",
        stages);
  }

  /** 2,000 tasks of 2 s of which 1-3 run 60-180 s (skewed keys), then 1,500 x 3 s, 500 x 1 s. */
  static Trace skew(long seed) {
    Random r = new Random(seed * 100 + 33);
    long[] first = lognormalStage(r, 2_000, 2_000, 0.3, 0);
    int skewed = 1 + r.nextInt(3);
    for (int i = 0; i < skewed; i++) {
      first[r.nextInt(first.length)] = 60_000 + r.nextInt(120_001);
    }
    List<Stage> stages = List.of(new Stage(0, true, first),
        new Stage(0, true, lognormalStage(r, 1_500, 3_000, 0.3, 0)),
        new Stage(0, true, lognormalStage(r, 500, 1_000, 0.3, 0)));
    return new Trace("skew", "2000 x 2 s with 1-3 tasks of 60-180 s, 1500 x 3 s, 500 x 1 s",
        stages);
  }

  /** Jobs every 15 s on average for 10 minutes, 1-3 stages of 5-3,000 tasks of 0.3-20 s. */
  static Trace mixed(long seed) {
    Random r = new Random(seed * 100 + 34);
    List<Stage> stages = new ArrayList<>();
    long at = 0;
    while (at < 600_000) {
      int count = 1 + r.nextInt(3);
      for (int s = 0; s < count; s++) {
        stages.add(new Stage(at, s > 0, lognormalStage(r, (int) logUniform(r, 5, 3_000),
            logUniform(r, 300, 20_000), 0.6, 0.01)));
      }
      at += Math.round(-15_000 * Math.log(1 - r.nextDouble()));
    }
    return new Trace("mixed", "jobs every 15 s on average, 1-3 stages of 5-3000 tasks of"
        + " 0.3-20 s", stages);
  }

  /** One job of six stages of 10-80 tasks of 30-90 s. */
  static Trace narrowLong(long seed) {
    Random r = new Random(seed * 100 + 35);
    List<Stage> stages = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      stages.add(new Stage(0, true, lognormalStage(r, (int) logUniform(r, 10, 80),
          logUniform(r, 30_000, 90_000), 0.3, 0)));
    }
    return new Trace("narrowlong", "1 job, 6 stages of 10-80 tasks of 30-90 s", stages);
  }

  /** 6 s tasks arriving to keep a concurrency that jumps every 80 s (50-100, 200-260, ...). */
  static Trace steps(long seed) {
    Random r = new Random(seed * 100 + 36);
    int[] levels = {50 + r.nextInt(50), 200 + r.nextInt(60), 60 + r.nextInt(60),
        250 + r.nextInt(60), 20 + r.nextInt(30)};
    List<Stage> stages = new ArrayList<>();
    for (int second = 0; second < 400; second++) {
      addArrivals(stages, r, second, levels[second / 80], 6_000);
    }
    return new Trace("steps", "6 s tasks, demand in steps every 80 s (50-100, 200-260, 60-120,"
        + " 250-310, 20-50)", stages);
  }

  /** Jobs every 40 s on average for 400 s, 2-3 stages of 40-800 tasks of 1-8 s, queue of 48. */
  static Trace queueJobs(long seed) {
    Random r = new Random(seed * 100 + 37);
    List<Stage> stages = new ArrayList<>();
    long at = 0;
    while (at < 400_000) {
      int count = 2 + r.nextInt(2);
      for (int s = 0; s < count; s++) {
        stages.add(new Stage(at, s > 0, lognormalStage(r, (int) logUniform(r, 40, 800),
            logUniform(r, 1_000, 8_000), 0.5, 0.01)));
      }
      at += Math.round(-40_000 * Math.log(1 - r.nextDouble()));
    }
    return new Trace("queuejobs", "jobs of 2-3 stages (40-800 tasks, 1-8 s) every 40 s on"
        + " average, on a queue of 48", stages, -1, 0, 48);
  }
}
