package dev.tide.bench.elasticity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What each rule contributes: the defaults with one rule off (or another ramp, or a fixed idle
 * timeout) on the whole trace set at both start latencies, summarised as targets met and the
 * geometric means of the ratios. The defaults are settled from this table, not from one trace.
 */
final class Variants {
  private Variants() {}

  static void print(List<Trace> traces, long seed) {
    System.out.println("Each rule's share (the defaults with one change, whole trace set; geo ="
        + " geometric mean over traces, max = worst trace):");
    System.out.printf(Locale.ROOT, "%-5s %-14s %6s %10s %10s %10s %10s %10s%n", "start",
        "variant", "MET", "geo x orcl", "max x orcl", "max x expo", "max x stat", "max lat");
    for (long latency : ElasticityBench.START_LATENCIES) {
      Simulation.ClusterModel cluster = ElasticityBench.cluster(latency, seed);
      Map<String, Function<Simulation.Environment, Simulation.Allocation>> references =
          new LinkedHashMap<>(ElasticityBench.strategies(cluster));
      references.remove("headroom");
      references.remove("default");
      Map<Trace, Map<String, Simulation.Result>> base = new LinkedHashMap<>();
      for (Trace trace : traces) {
        base.put(trace, ElasticityBench.run(trace, cluster, references));
      }
      for (var variant : ElasticityBench.variants(cluster).entrySet()) {
        int met = 0;
        double logOracle = 0;
        double maxOracle = 0;
        double maxExp = 0;
        double maxStat = 0;
        double maxLat = 0;
        for (Trace trace : traces) {
          Map<String, Simulation.Result> r = new LinkedHashMap<>(base.get(trace));
          r.put(variant.getKey(), Simulation.run(trace, cluster, ElasticityBench.MAX_EXECUTORS,
              variant.getKey(), variant.getValue()));
          Targets.Check c = Targets.Check.of(trace, r, variant.getKey());
          met += c.met() ? 1 : 0;
          logOracle += Math.log(c.oracle());
          maxOracle = Math.max(maxOracle, c.oracle());
          maxExp = Math.max(maxExp, c.exponential());
          maxStat = Math.max(maxStat, c.makespan());
          maxLat = Math.max(maxLat, c.jobLatency());
        }
        System.out.printf(Locale.ROOT, "%4ds %-14s %3d/%-2d %10.2f %10.2f %10.2f %10.3f %10.3f%n",
            latency / 1000, variant.getKey(), met, traces.size(),
            Math.exp(logOracle / traces.size()), maxOracle, maxExp, maxStat, maxLat);
      }
    }
  }
}
