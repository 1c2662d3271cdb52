package dev.tide.bench.elasticity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark's targets for the shipped defaults, per trace and start latency: makespan <=
 * 1.03x static, executor-seconds <= 1.5x the oracle's and never above the exponential ramp's,
 * and, where jobs arrive over time, mean job latency <= 1.10x static.
 */
final class Targets {
  static final double MAKESPAN = 1.03;
  static final double ORACLE = 1.5;
  static final double JOB_LATENCY = 1.10;
  /**
   * "Never more executor-seconds than exponential" within 0.1%: where both hold every executor
   * for the same work (a trace that saturates the queue), they differ by milliseconds of start
   * jitter, not by policy.
   */
  static final double SAME = 0.001;

  private Targets() {}

  /** The ratios of one run of the defaults against its references. */
  record Check(double makespan, double oracle, double exponential, double jobLatency) {
    static Check of(Trace trace, Map<String, Simulation.Result> r, String strategy) {
      Simulation.Result d = r.get(strategy);
      Simulation.Result stat = r.get("static");
      return new Check((double) d.makespanMillis() / stat.makespanMillis(),
          (double) d.executorMillis() / r.get("oracle").executorMillis(),
          (double) d.executorMillis() / r.get("exponential").executorMillis(),
          trace.hasArrivals() ? d.meanJobLatencyMillis() / stat.meanJobLatencyMillis() : 0);
    }

    boolean met() {
      return makespan <= MAKESPAN && oracle <= ORACLE && exponential <= 1 + SAME
          && jobLatency <= JOB_LATENCY;
    }

    String describe() {
      return String.format(Locale.ROOT, "makespan %.3fx static, executor-s %.2fx oracle, %.3fx"
          + " exponential%s", makespan, oracle, exponential, jobLatency == 0 ? ""
          : String.format(Locale.ROOT, ", job latency %.3fx static", jobLatency));
    }
  }

  static String line(Trace trace, long latency, Map<String, Simulation.Result> byStrategy) {
    Check c = Check.of(trace, byStrategy, "default");
    return String.format(Locale.ROOT, "%s %-11s start %2d s: %s", c.met() ? "MET   " : "MISSED",
        trace.name(), latency / 1000, c.describe());
  }

  /** The targets for the defaults over {@code count} further seeds: how often each was met. */
  static void overSeeds(java.util.function.LongFunction<List<Trace>> traceSet, long firstSeed,
      int count) {
    System.out.printf(Locale.ROOT, "Targets over seeds %d..%d (default; MET count, and the worst"
        + " ratio of each kind):%n", firstSeed, firstSeed + count - 1);
    Map<String, List<Check>> checks = new LinkedHashMap<>();
    for (long seed = firstSeed; seed < firstSeed + count; seed++) {
      for (long latency : ElasticityBench.START_LATENCIES) {
        Simulation.ClusterModel cluster = ElasticityBench.cluster(latency, seed);
        Map<String, java.util.function.Function<Simulation.Environment, Simulation.Allocation>>
            strategies = new LinkedHashMap<>(ElasticityBench.strategies(cluster));
        strategies.remove("headroom");
        for (Trace trace : traceSet.apply(seed)) {
          Map<String, Simulation.Result> r = ElasticityBench.run(trace, cluster, strategies);
          checks.computeIfAbsent(String.format(Locale.ROOT, "%-11s start %2d s", trace.name(),
              latency / 1000), k -> new ArrayList<>()).add(Check.of(trace, r, "default"));
        }
      }
    }
    checks.forEach((key, list) -> {
      long met = list.stream().filter(Check::met).count();
      double makespan = list.stream().mapToDouble(Check::makespan).max().orElse(0);
      double oracle = list.stream().mapToDouble(Check::oracle).max().orElse(0);
      double exp = list.stream().mapToDouble(Check::exponential).max().orElse(0);
      double lat = list.stream().mapToDouble(Check::jobLatency).max().orElse(0);
      System.out.printf(Locale.ROOT, "  %s: %d/%d MET; worst makespan %.3fx, executor-s %.2fx"
          + " oracle, %.2fx exponential%s%n", key, met, list.size(), makespan, oracle, exp,
          lat == 0 ? "" : String.format(Locale.ROOT, ", job latency %.3fx", lat));
    });
  }
}
