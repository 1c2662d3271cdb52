package dev.tide.bench.streaming;

import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * An input-rate trace for a micro-batch job, and the incidents in it.
 *
 * @param recordsPerSecond the input rate at a time in seconds
 * @param noise each batch's records are multiplied by {@code 1 + u}, u uniform in [-noise, noise]
 * @param slowBatchAtMillis the batch due at this time runs {@link #SLOW_FACTOR} times slower (a
 *     GC pause in every executor), or -1
 * @param executorLostAtMillis one executor (a busy one if a batch runs) dies then, or -1
 * @param stepsMillis the changes whose settle time is measured (steps, spike edges, incidents)
 */
record RateTrace(String name, String description, long lengthMillis,
    DoubleUnaryOperator recordsPerSecond, double noise, long slowBatchAtMillis,
    long executorLostAtMillis, List<Long> stepsMillis) {
  static final double SLOW_FACTOR = 3;

  /** Traces whose rate only rises or only falls (after the start): reversals are avoidable. */
  boolean monotone() {
    return name.startsWith("ramp");
  }

  static List<RateTrace> all() {
    return List.of(
        new RateTrace("step", "1000 rec/s, 4000 at 60 s, 1000 again at 240 s", 420_000,
            t -> t >= 60 && t < 240 ? 4000 : 1000, 0, -1, -1, List.of(60_000L, 240_000L)),
        new RateTrace("ramp-up", "1000 rec/s, rising linearly to 4000 from 60 s to 300 s",
            420_000, t -> 1000 + 3000 * clamp01((t - 60) / 240), 0, -1, -1, List.of()),
        new RateTrace("ramp-down", "4000 rec/s, falling linearly to 1000 from 60 s to 300 s",
            420_000, t -> 4000 - 3000 * clamp01((t - 60) / 240), 0, -1, -1, List.of()),
        new RateTrace("sine", "2500 +- 1500 rec/s, period 120 s", 480_000,
            t -> 2500 + 1500 * Math.sin(2 * Math.PI * t / 120), 0, -1, -1, List.of()),
        new RateTrace("spike", "1000 rec/s, 4000 for 10 s at 120 s", 300_000,
            t -> t >= 120 && t < 130 ? 4000 : 1000, 0, -1, -1, List.of(120_000L, 130_000L)),
        new RateTrace("noise", "2500 rec/s, each batch +-10% (uniform)", 300_000, t -> 2500,
            0.10, -1, -1, List.of()),
        new RateTrace("gc", "2500 rec/s, the batch due at 150 s runs 3x slower", 300_000,
            t -> 2500, 0, 150_000, -1, List.of(150_000L)),
        new RateTrace("lost", "2500 rec/s, an executor is lost at 150.5 s (replaced)", 300_000,
            t -> 2500, 0, -1, 150_500, List.of(150_500L)),
        new RateTrace("idle", "1000 rec/s, none from 60 s to 180 s, then 1000 again", 300_000,
            t -> t >= 60 && t < 180 ? 0 : 1000, 0, -1, -1, List.of(60_000L, 180_000L)));
  }

  private static double clamp01(double x) {
    return Math.max(0, Math.min(1, x));
  }
}
