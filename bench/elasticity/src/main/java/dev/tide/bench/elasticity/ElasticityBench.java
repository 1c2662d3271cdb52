package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.AllocationSettings;
import dev.tide.driver.alloc.AllocationSettings.RampUpMode;
import dev.tide.driver.alloc.AllocationSettings.Rules;
import dev.tide.driver.alloc.BatchAllocationPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs every load trace, at two container start latencies, under static allocation at
 * maxExecutors, Spark's exponential ramp-up, the headroom ramp-up, Tide's shipped defaults
 * ({@code default}) and an oracle that knows the trace, on a simulated cluster; prints one table
 * per start latency with the executor time split into start-up, busy, idle later reused, idle
 * until released and never used, then the targets with MET/MISSED, each rule's share (the
 * defaults with one rule off), and the targets over further seeds.
 *
 * <p>Run: {@code bench/elasticity/run.sh [-Dexec.args="--seed 1 --seeds 5"]}.
 */
public final class ElasticityBench {
  static final int MAX_EXECUTORS = 256;
  /** The shipped executorIdleTimeout: a quiet period longer than it makes a step unannounced. */
  static final long IDLE_TIMEOUT_MILLIS =
      AllocationSettings.defaults(0, 1, 1).executorIdleTimeoutMillis();
  static final int QUEUE_CAPACITY = 320;
  static final long HEARTBEAT_MILLIS = 200;
  static final long[] START_LATENCIES = {2_000, 10_000};

  private ElasticityBench() {}

  /** The cluster for one start latency: jitter +- a quarter of it. */
  static Simulation.ClusterModel cluster(long startLatencyMillis, long seed) {
    return new Simulation.ClusterModel(QUEUE_CAPACITY, HEARTBEAT_MILLIS, startLatencyMillis,
        startLatencyMillis / 4, 1, seed);
  }

  /** The compared strategies, by name: how each builds its allocation for one run. */
  static Map<String, Function<Simulation.Environment, Simulation.Allocation>> strategies(
      Simulation.ClusterModel cluster) {
    Map<String, Function<Simulation.Environment, Simulation.Allocation>> s =
        new LinkedHashMap<>();
    AllocationSettings classic = AllocationSettings.classic(0, MAX_EXECUTORS,
        cluster.slotsPerExecutor());
    s.put("static", policy(new AllocationSettings(false, 0, MAX_EXECUTORS, MAX_EXECUTORS,
        cluster.slotsPerExecutor(), classic.executorAllocationRatio(), 1_000, 1_000, 60_000,
        120_000, RampUpMode.EXPONENTIAL, Rules.NONE, classic.arrivalHoldWeight(), 0)));
    s.put("exponential", policy(classic));
    s.put("headroom", policy(classic.withRampUp(RampUpMode.HEADROOM)));
    s.put("default", policy(shipped(cluster)));
    long horizon = cluster.heartbeatMillis() + cluster.startLatencyMillis()
        + cluster.startJitterMillis() + Simulation.TICK_MILLIS;
    s.put("oracle", env -> new OracleAllocation(env, MAX_EXECUTORS, horizon));
    return s;
  }

  /** The shipped defaults ({@code tide-site.xml} untouched) with this bench's bounds. */
  static AllocationSettings shipped(Simulation.ClusterModel cluster) {
    return AllocationSettings.defaults(0, MAX_EXECUTORS, cluster.slotsPerExecutor());
  }

  /** The defaults with one rule (or the ramp) changed: what each rule contributes. */
  static Map<String, Function<Simulation.Environment, Simulation.Allocation>> variants(
      Simulation.ClusterModel cluster) {
    AllocationSettings d = shipped(cluster);
    Map<String, Function<Simulation.Environment, Simulation.Allocation>> v =
        new LinkedHashMap<>();
    v.put("default", policy(d));
    for (String rule : List.of("adaptiveIdle", "earlyRelease", "lookahead", "immediate",
        "arrivalHold", "arrivalTrend", "arrivalAtOnce")) {
      v.put("-" + rule, policy(d.withRules(without(d.rules(), rule))));
    }
    v.put("holdWeight=2", policy(d.withArrivalHoldWeight(2)));
    v.put("allowance=0", policy(d.withIdleAllowance(0)));
    v.put("ramp=expon", policy(d.withRampUp(RampUpMode.EXPONENTIAL)));
    v.put("ramp=headroom", policy(d.withRampUp(RampUpMode.HEADROOM)));
    v.put("idle=10s", policy(d.withIdleTimeouts(10_000, d.cachedExecutorIdleTimeoutMillis())));
    // A warm pool a user sets for interactive sessions (minExecutors): not a default, since it
    // holds executors through every quiet period of every application.
    v.put("min=32", policy(AllocationSettings.defaults(32, MAX_EXECUTORS,
        cluster.slotsPerExecutor())));
    return v;
  }

  /** {@code rules} with the one named (as in the variants table) off. */
  private static Rules without(Rules r, String rule) {
    return new Rules(r.adaptiveIdleTimeout() && !rule.equals("adaptiveIdle"),
        r.earlyRelease() && !rule.equals("earlyRelease"),
        r.lookahead() && !rule.equals("lookahead"),
        r.immediateFirstRequest() && !rule.equals("immediate"),
        r.arrivalHold() && !rule.equals("arrivalHold"),
        r.arrivalTrend() && !rule.equals("arrivalTrend"),
        r.arrivalAtOnce() && !rule.equals("arrivalAtOnce"));
  }

  private static Function<Simulation.Environment, Simulation.Allocation> policy(
      AllocationSettings settings) {
    return env -> Simulation.of(BatchAllocationPolicy.create(settings, env.headroom()));
  }

  public static void main(String[] args) {
    long seed = 1;
    int seeds = 4;
    boolean variants = true;
    java.util.Set<String> focus = null;
    long focusLatency = 0;
    java.util.function.LongFunction<List<Trace>> traceSet = LoadTraces::all;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--seeds" -> seeds = Integer.parseInt(args[++i]);
        case "--no-variants" -> variants = false;
        case "--focus" -> focus = java.util.Set.of(args[++i].split(","));
        case "--latency" -> focusLatency = Long.parseLong(args[++i]) * 1000;
        case "--holdout" -> traceSet = HoldoutTraces::all;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (focus != null) {
      focus(traceSet, focus, focusLatency, seed, seeds);
      return;
    }
    List<Trace> traces = traceSet.apply(seed);
    List<String> targetLines = new ArrayList<>();
    for (long latency : START_LATENCIES) {
      Simulation.ClusterModel cluster = cluster(latency, seed);
      System.out.printf(Locale.ROOT, "Start latency %d ms +- %d ms (seed %d): queue %d executors"
          + " (unless the trace says), %d slot(s) each, heartbeat %d ms, tick %d ms,"
          + " maxExecutors %d.%n", cluster.startLatencyMillis(), cluster.startJitterMillis(),
          seed, QUEUE_CAPACITY, cluster.slotsPerExecutor(), HEARTBEAT_MILLIS,
          Simulation.TICK_MILLIS, MAX_EXECUTORS);
      Table.header();
      for (Trace trace : traces) {
        Map<String, Simulation.Result> byStrategy = run(trace, cluster, strategies(cluster));
        Table.rows(trace, byStrategy);
        targetLines.add(Targets.line(trace, latency, byStrategy));
      }
      System.out.println();
    }
    for (Trace trace : traces) {
      System.out.printf(Locale.ROOT, "%-11s %s; %d tasks, %d job(s), lower bound %.0f"
          + " executor-s%s%n", trace.name(), trace.description(), trace.tasks(),
          trace.jobStarts().size(), trace.workMillis() / 1000.0,
          trace.queueCapacity() > 0 ? ", queue " + trace.queueCapacity() : "");
    }
    Table.legend();
    System.out.println();
    System.out.println("Targets (default; makespan <= 1.03x static, executor-s <= 1.5x oracle and"
        + " <= exponential, mean job latency <= 1.10x static where jobs arrive over time; a job"
        + " after a quiet period longer than executorIdleTimeout (unannounced step): makespan"
        + " <= 1.03x and executor-s <= the best non-clairvoyant strategy's (exponential or"
        + " headroom), not the oracle's; where no non-clairvoyant strategy meets both 1.03x static"
        + " and 1.5x oracle (conflict): makespan <= 1.03x static, executor-s <= exponential."
        + " docs/allocation.md \"How a target line is judged\"):");
    targetLines.forEach(l -> System.out.println("  " + l));
    if (variants) {
      System.out.println();
      Variants.print(traces, seed);
    }
    if (seeds > 0) {
      System.out.println();
      Targets.overSeeds(traceSet, seed + 1, seeds);
    }
  }

  /**
   * {@code --focus a,b [--latency S]}: only those traces (at that start latency, else both), for
   * seeds {@code seed .. seed + seeds}: the table rows and the target line of each.
   */
  private static void focus(java.util.function.LongFunction<List<Trace>> traceSet,
      java.util.Set<String> names, long onlyLatency, long seed, int seeds) {
    Table.header();
    for (long s = seed; s <= seed + seeds; s++) {
      for (long latency : START_LATENCIES) {
        if (onlyLatency != 0 && latency != onlyLatency) {
          continue;
        }
        Simulation.ClusterModel cluster = cluster(latency, s);
        for (Trace trace : traceSet.apply(s)) {
          if (names.contains(trace.name())) {
            Map<String, Simulation.Result> r = run(trace, cluster, strategies(cluster));
            Table.rows(trace, r);
            System.out.println("seed " + s + " " + Targets.line(trace, latency, r));
            if (Boolean.getBoolean("bench.stages")) {
              for (int i = 0; i < trace.stages().size(); i++) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "  stage %2d %5d tasks", i, trace.stages().get(i).taskMillis().length));
                for (String k : List.of("static", "default", "oracle")) {
                  Simulation.StageTimes t = r.get(k).stages().get(i);
                  line.append(String.format(Locale.ROOT, " | %s %6.1f %6.1f %6.1f", k,
                      t.submittedMillis() / 1000.0, t.fullWidthMillis() / 1000.0,
                      t.completedMillis() / 1000.0));
                }
                System.out.println(line);
              }
            }
          }
        }
      }
    }
  }

  static Map<String, Simulation.Result> run(Trace trace, Simulation.ClusterModel cluster,
      Map<String, Function<Simulation.Environment, Simulation.Allocation>> strategies) {
    Map<String, Simulation.Result> byStrategy = new LinkedHashMap<>();
    for (var s : strategies.entrySet()) {
      byStrategy.put(s.getKey(),
          Simulation.run(trace, cluster, MAX_EXECUTORS, s.getKey(), s.getValue()));
    }
    return byStrategy;
  }
}
