package dev.tide.bench.elasticity;

import java.util.Locale;
import java.util.Map;

/** The results table: one row per trace and strategy. */
final class Table {
  private static final String HEADER = "%-11s %-11s %9s %6s %8s %6s %10s %6s %6s %8s %8s %8s %8s"
      + " %8s %5s %6s%n";
  private static final String ROW = "%-11s %-11s %9.1f %6.3f %8s %6s %10.0f %6.2f %6.2f %8.0f"
      + " %8.0f %8.0f %8.0f %8.0f %5d %6s%n";

  private Table() {}

  static void header() {
    System.out.printf(Locale.ROOT, HEADER, "trace", "strategy", "makespan", "x stat", "job lat",
        "x stat", "executor-s", "x orcl", "x expo", "start-up", "busy", "idle>use", "idle>rel",
        "never", "kills", "to 256");
  }

  static void rows(Trace trace, Map<String, Simulation.Result> byStrategy) {
    Simulation.Result stat = byStrategy.get("static");
    Simulation.Result oracle = byStrategy.get("oracle");
    Simulation.Result exp = byStrategy.get("exponential");
    for (Simulation.Result r : byStrategy.values()) {
      Simulation.Account a = r.account();
      boolean arrivals = trace.hasArrivals();
      System.out.printf(Locale.ROOT, ROW, trace.name(),
          r.strategy() + (r.finished() ? "" : "*"), r.makespanMillis() / 1000.0,
          (double) r.makespanMillis() / stat.makespanMillis(),
          arrivals ? String.format(Locale.ROOT, "%.2f", r.meanJobLatencyMillis() / 1000.0) : "-",
          arrivals ? String.format(Locale.ROOT, "%.3f",
              r.meanJobLatencyMillis() / stat.meanJobLatencyMillis()) : "-",
          r.executorSeconds(), (double) r.executorMillis() / oracle.executorMillis(),
          (double) r.executorMillis() / exp.executorMillis(), a.startUpMillis() / 1000.0,
          a.busyMillis() / 1000.0, a.idleReusedMillis() / 1000.0,
          a.idleReleasedMillis() / 1000.0, a.neverUsedMillis() / 1000.0, r.kills(),
          r.rampMillis() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", r.rampMillis() / 1000.0));
    }
  }

  static void legend() {
    System.out.println("(makespan s; job lat = mean seconds from a job's arrival to its end, for"
        + " traces where jobs arrive over time; executor-s = container time from grant to"
        + " release, split into start-up (grant to registration of executors that ran a task),"
        + " busy, idle>use (idle, a task came later), idle>rel (idle from the last task to the"
        + " release or the end) and never (containers that never ran a task); x orcl / x expo ="
        + " executor-s over the oracle's / the exponential ramp's; kills = executors released"
        + " by the policy; to 256 = seconds from the spike to 256 executors; oracle = knows the"
        + " trace: asks one container start ahead for what the tasks will occupy, releases idle"
        + " executors at once; * = cut off unfinished)");
  }
}
