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
import java.util.function.Function;

/**
 * Runs every load trace under static allocation at maxExecutors, the exponential ramp-up and the
 * headroom ramp-up (Tide's real policy, default timeouts) and an oracle that knows the trace, on
 * a simulated cluster; prints one table, the bursty job's time per stage, then the benchmark's
 * targets with the measured ratios.
 *
 * <p>Run: {@code bench/elasticity/run.sh}.
 */
public final class ElasticityBench {
  static final int MAX_EXECUTORS = 256;
  static final Simulation.ClusterModel CLUSTER = new Simulation.ClusterModel(
      320, 200, 2_000, 500, 1, 7);

  private ElasticityBench() {}

  /** The compared strategies, by name: how each builds its allocation for one run. */
  static Map<String, Function<Simulation.Environment, Simulation.Allocation>> strategies() {
    AllocationSettings dynamic = AllocationSettings.defaults(0, MAX_EXECUTORS,
        CLUSTER.slotsPerExecutor());
    AllocationSettings fixed = new AllocationSettings(false, 0, MAX_EXECUTORS, MAX_EXECUTORS,
        CLUSTER.slotsPerExecutor(), BigDecimal.ONE, 1_000, 1_000, 60_000, 120_000,
        RampUpMode.EXPONENTIAL);
    long horizon = CLUSTER.heartbeatMillis() + CLUSTER.startLatencyMillis()
        + CLUSTER.startJitterMillis() + Simulation.TICK_MILLIS;
    Map<String, Function<Simulation.Environment, Simulation.Allocation>> s =
        new LinkedHashMap<>();
    s.put("static", policy(fixed));
    s.put("exponential", policy(dynamic));
    s.put("headroom", policy(dynamic.withRampUp(RampUpMode.HEADROOM)));
    s.put("oracle", env -> new OracleAllocation(env, MAX_EXECUTORS, horizon));
    return s;
  }

  private static Function<Simulation.Environment, Simulation.Allocation> policy(
      AllocationSettings settings) {
    return env -> BatchAllocationPolicy.create(settings, env.headroom())::evaluate;
  }

  public static void main(String[] args) {
    System.out.printf(Locale.ROOT, "Cluster: queue capacity %d executors, %d task slot(s) each,"
        + " container start %d +- %d ms, allocator heartbeat %d ms, policy tick %d ms;"
        + " maxExecutors %d, backlog timeout 1 s, idle timeout 60 s.%n%n", CLUSTER.capacity(),
        CLUSTER.slotsPerExecutor(), CLUSTER.startLatencyMillis(), CLUSTER.startJitterMillis(),
        CLUSTER.heartbeatMillis(), Simulation.TICK_MILLIS, MAX_EXECUTORS);
    String header = "%-7s %-12s %10s %7s %11s %7s %8s %7s %7s %8s %7s %6s %5s %8s%n";
    String row = "%-7s %-12s %10.1f %7.3f %11.0f %7.3f %8.2f %7.2f %7d %8d %7d %6d %5d %8s%n";
    System.out.printf(Locale.ROOT, header, "trace", "strategy", "makespan s", "x stat",
        "executor-s", "x stat", "x oracle", "x bound", "targets", "requests", "cancels",
        "kills", "peak", "to 256 s");
    Map<String, Map<String, Simulation.Result>> results = new LinkedHashMap<>();
    for (Trace trace : LoadTraces.all()) {
      Map<String, Simulation.Result> byStrategy = new LinkedHashMap<>();
      for (var s : strategies().entrySet()) {
        byStrategy.put(s.getKey(),
            Simulation.run(trace, CLUSTER, MAX_EXECUTORS, s.getKey(), s.getValue()));
      }
      results.put(trace.name(), byStrategy);
      Simulation.Result stat = byStrategy.get("static");
      Simulation.Result oracle = byStrategy.get("oracle");
      for (Simulation.Result r : byStrategy.values()) {
        System.out.printf(Locale.ROOT, row,
            trace.name(), r.strategy() + (r.finished() ? "" : "*"), r.makespanMillis() / 1000.0,
            (double) r.makespanMillis() / stat.makespanMillis(), r.executorSeconds(),
            (double) r.executorMillis() / stat.executorMillis(),
            (double) r.executorMillis() / oracle.executorMillis(),
            (double) r.executorMillis() / r.lowerBoundMillis(), r.targetChanges(), r.requests(),
            r.cancels(), r.kills(), r.peakExecutors(), r.rampMillis() < 0 ? "-"
                : String.format(Locale.ROOT, "%.1f", r.rampMillis() / 1000.0));
      }
    }
    System.out.println();
    for (Trace trace : LoadTraces.all()) {
      System.out.printf(Locale.ROOT, "%-7s %s; %d tasks, lower bound %.0f executor-s%n",
          trace.name(), trace.description(), trace.tasks(),
          trace.workMillis() / 1000.0 / CLUSTER.slotsPerExecutor());
    }
    System.out.println("(oracle = knows the trace: asks one container start ahead for what the"
        + " tasks will occupy, releases idle executors at once; bound = task work / slots per"
        + " executor, no idle slot and no start latency; targets = changes of the declared"
        + " target; requests = containers asked for; cancels = ungranted requests withdrawn"
        + " when the target dropped; kills = executors released by the policy;"
        + " * = cut off unfinished)");
    System.out.println();
    printStages(LoadTraces.bursty(), results.get("bursty"));
    System.out.println();
    checkTargets(results);
  }

  /**
   * Per stage of a barrier job: how long each strategy took from the stage's submission to
   * running it at full width, and to its completion; the last columns are the differences with
   * static allocation, i.e. where the makespan goes.
   */
  private static void printStages(Trace trace, Map<String, Simulation.Result> byStrategy) {
    System.out.printf(Locale.ROOT, "%s, per stage: seconds from submission to full width"
        + " (min(tasks, %d) running) / to completion%n", trace.name(), MAX_EXECUTORS);
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-6s %7s", "stage",
        "tasks"));
    for (String strategy : byStrategy.keySet()) {
      header.append(String.format(Locale.ROOT, " %17s", strategy));
    }
    for (String strategy : byStrategy.keySet()) {
      if (!strategy.equals("static")) {
        header.append(String.format(Locale.ROOT, " %12s", strategy.substring(0,
            Math.min(5, strategy.length())) + "-stat"));
      }
    }
    System.out.println(header);
    Simulation.Result stat = byStrategy.get("static");
    for (int i = 0; i < trace.stages().size(); i++) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-6d %7d", i + 1,
          trace.stages().get(i).taskMillis().length));
      for (Simulation.Result r : byStrategy.values()) {
        Simulation.StageTimes t = r.stages().get(i);
        line.append(String.format(Locale.ROOT, " %8.1f/%8.1f", t.toFullWidthMillis() / 1000.0,
            t.durationMillis() / 1000.0));
      }
      for (Simulation.Result r : byStrategy.values()) {
        if (r != stat) {
          line.append(String.format(Locale.ROOT, " %+12.1f", (r.stages().get(i).durationMillis()
              - stat.stages().get(i).durationMillis()) / 1000.0));
        }
      }
      System.out.println(line);
    }
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
