package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.AllocationSettings;
import dev.tide.driver.alloc.AllocationSettings.RampUpMode;
import dev.tide.driver.alloc.BatchAllocationPolicy;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every load trace under static allocation at maxExecutors, the exponential ramp-up and the
 * headroom ramp-up (Tide's real policy, default timeouts) on a simulated cluster, prints one
 * table, then the benchmark's targets with the measured ratios.
 *
 * <p>Run: {@code mvn -f bench/elasticity/pom.xml -q compile exec:java} after
 * {@code mvn -o -q -pl driver-runtime install}.
 */
public final class ElasticityBench {
  static final int MAX_EXECUTORS = 256;
  static final Simulation.ClusterModel CLUSTER = new Simulation.ClusterModel(
      320, 200, 2_000, 500, 1, 7);

  private ElasticityBench() {}

  /** The compared strategies, by name. */
  static Map<String, AllocationSettings> strategies() {
    AllocationSettings dynamic = AllocationSettings.defaults(0, MAX_EXECUTORS,
        CLUSTER.slotsPerExecutor());
    Map<String, AllocationSettings> s = new LinkedHashMap<>();
    s.put("static", new AllocationSettings(false, 0, MAX_EXECUTORS, MAX_EXECUTORS,
        CLUSTER.slotsPerExecutor(), BigDecimal.ONE, 1_000, 1_000, 60_000, 120_000,
        RampUpMode.EXPONENTIAL));
    s.put("exponential", dynamic);
    s.put("headroom", dynamic.withRampUp(RampUpMode.HEADROOM));
    return s;
  }

  public static void main(String[] args) {
    System.out.printf(Locale.ROOT, "Cluster: queue capacity %d executors, %d task slot(s) each,"
        + " container start %d +- %d ms, allocator heartbeat %d ms, policy tick %d ms;"
        + " maxExecutors %d, backlog timeout 1 s, idle timeout 60 s.%n%n", CLUSTER.capacity(),
        CLUSTER.slotsPerExecutor(), CLUSTER.startLatencyMillis(), CLUSTER.startJitterMillis(),
        CLUSTER.heartbeatMillis(), Simulation.TICK_MILLIS, MAX_EXECUTORS);
    System.out.printf(Locale.ROOT, "%-7s %-12s %10s %7s %12s %7s %8s %8s %6s %6s %9s%n",
        "trace", "strategy", "makespan s", "x stat", "executor-s", "x stat", "x oracle",
        "targets", "kills", "peak", "to 256 s");
    Map<String, Map<String, Simulation.Result>> results = new LinkedHashMap<>();
    for (Trace trace : LoadTraces.all()) {
      Map<String, Simulation.Result> byStrategy = new LinkedHashMap<>();
      for (Map.Entry<String, AllocationSettings> s : strategies().entrySet()) {
        byStrategy.put(s.getKey(), Simulation.run(trace, CLUSTER, s.getKey(),
            headroom -> BatchAllocationPolicy.create(s.getValue(), headroom)));
      }
      results.put(trace.name(), byStrategy);
      Simulation.Result stat = byStrategy.get("static");
      for (Simulation.Result r : byStrategy.values()) {
        System.out.printf(Locale.ROOT, "%-7s %-12s %10.1f %7.3f %12.0f %7.3f %8.2f %8d %6d %6d %9s%n",
            trace.name(), r.strategy() + (r.finished() ? "" : "*"), r.makespanMillis() / 1000.0,
            (double) r.makespanMillis() / stat.makespanMillis(), r.executorSeconds(),
            (double) r.executorMillis() / stat.executorMillis(),
            (double) r.executorMillis() / r.oracleMillis(), r.targetChanges(), r.kills(),
            r.peakExecutors(), r.rampMillis() < 0 ? "-"
                : String.format(Locale.ROOT, "%.1f", r.rampMillis() / 1000.0));
      }
    }
    System.out.println();
    for (Trace trace : LoadTraces.all()) {
      System.out.printf(Locale.ROOT, "%-7s %s; %d tasks, oracle %.0f executor-s%n",
          trace.name(), trace.description(), trace.tasks(),
          trace.workMillis() / 1000.0 / CLUSTER.slotsPerExecutor());
    }
    System.out.println("(oracle = task work / slots per executor: no idle slot, no start"
        + " latency; targets = changes of the declared target; * = cut off unfinished)");
    System.out.println();
    checkTargets(results);
  }

  private static void checkTargets(Map<String, Map<String, Simulation.Result>> results) {
    List<String> lines = new ArrayList<>();
    Map<String, Simulation.Result> bursty = results.get("bursty");
    Simulation.Result stat = bursty.get("static");
    for (String strategy : List.of("exponential", "headroom")) {
      Simulation.Result r = bursty.get(strategy);
      double es = (double) r.executorMillis() / stat.executorMillis();
      double ms = (double) r.makespanMillis() / stat.makespanMillis();
      lines.add(String.format(Locale.ROOT, "%s bursty, %s: executor-s %.3fx static (<= 0.7),"
          + " makespan %.3fx static (<= 1.05)", es <= 0.7 && ms <= 1.05 ? "MET   " : "MISSED",
          strategy, es, ms));
    }
    Map<String, Simulation.Result> spike = results.get("spike");
    Simulation.Result exp = spike.get("exponential");
    Simulation.Result head = spike.get("headroom");
    if (exp.rampMillis() > 0 && head.rampMillis() > 0) {
      double speedup = (double) exp.rampMillis() / head.rampMillis();
      double es = (double) head.executorMillis() / exp.executorMillis();
      lines.add(String.format(Locale.ROOT, "%s spike, headroom vs exponential: 0 -> 256 in"
          + " %.1f s vs %.1f s = %.2fx faster (>= 3), executor-s %.3fx (<= 1.05)",
          speedup >= 3 && es <= 1.05 ? "MET   " : "MISSED", head.rampMillis() / 1000.0,
          exp.rampMillis() / 1000.0, speedup, es));
    } else {
      lines.add("MISSED spike: 256 executors were never reached");
    }
    System.out.println("Targets:");
    lines.forEach(l -> System.out.println("  " + l));
  }
}
