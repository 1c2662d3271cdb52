package dev.tide.bench.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy;
import dev.tide.driver.alloc.StreamingSettings;
import dev.tide.driver.alloc.StreamingSettings.Policy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs every rate trace, with a 2 s and a 10 s container start, under static allocation, Spark's
 * DStreams rule, Tide's {@code seed} and {@code proportional} policies (the real classes, their
 * shipped defaults) and an oracle; prints one table and the policy targets with what was
 * measured.
 *
 * <p>Run: {@code bench/streaming-sim/run.sh}. Arguments {@code key=value} override the
 * proportional policy's settings for tuning: {@code targetUtilization}, {@code catchUpTime}
 * (ms), {@code scaleDownMargin}, {@code scaleDownBatches}, {@code maxScaleDownStep};
 * {@code tasks=N} changes the map tasks per batch; {@code show=trace,strategy,start} prints that
 * run's target changes with their reasons.
 */
public final class StreamingSimBench {
  static final BatchModel DEFAULT_MODEL = new BatchModel(2_000, 32, 2.0, 20, 150, 1, 0.05, 42);
  static final int MIN_EXECUTORS = 0;
  static final int MAX_EXECUTORS = 50;
  static final long[] START_LATENCIES = {2_000, 10_000};

  private StreamingSimBench() {}

  public static void main(String[] args) {
    BatchModel model = DEFAULT_MODEL;
    for (String arg : args) {
      if (arg.startsWith("tasks=")) {
        model = new BatchModel(model.intervalMillis(), Integer.parseInt(arg.substring(6)),
            model.millisPerRecord(), model.taskFixedMillis(), model.overheadMillis(),
            model.slotsPerExecutor(), model.jitter(), model.seed());
      }
    }
    run(model, args);
  }

  private static void run(BatchModel model, String[] args) {
    StreamingSettings proportional = overridden(
        StreamingSettings.defaults(Policy.PROPORTIONAL, model.intervalMillis(), MIN_EXECUTORS,
            MAX_EXECUTORS), args);
    StreamingSettings seed = StreamingSettings.defaults(Policy.SEED, model.intervalMillis(),
        MIN_EXECUTORS, MAX_EXECUTORS);
    System.out.printf(Locale.ROOT, "Job: a batch every %d ms, %d map tasks of (records / %d x"
        + " %.1f ms + %d ms) +-%.0f%%, %d ms driver overhead per batch, %d task slot per"
        + " executor; min %d, max %d executors; every strategy starts with what the first batch"
        + " needs (the oracle's size for it).%n", model.intervalMillis(), model.tasks(),
        model.tasks(), model.millisPerRecord(), model.taskFixedMillis(), model.jitter() * 100,
        model.overheadMillis(), model.slotsPerExecutor(), MIN_EXECUTORS, MAX_EXECUTORS);
    System.out.println("seed: " + seed.describe().replaceFirst(", initial \\d+", ""));
    System.out.println("proportional: " + proportional.describe().replaceFirst(", initial \\d+",
        ""));
    System.out.printf(Locale.ROOT, "spark-rule: every %d s, mean processing / interval >= %.1f"
        + " adds max(round(ratio), 1), <= %.1f kills one; min max(1, minExecutors)%n",
        SparkDStreamsRule.SCALING_INTERVAL_MILLIS / 1000, SparkDStreamsRule.SCALING_UP_RATIO,
        SparkDStreamsRule.SCALING_DOWN_RATIO);
    System.out.println();
    String header = "%-9s %-12s %5s %7s %9s %9s %8s %8s %7s %5s %4s %-17s %-7s%n";
    String row = "%-9s %-12s %5d %7s %9.1f %9.1f %8.0f %8.2f %7d %5d %4d %-17s %-7s%n";
    System.out.printf(Locale.ROOT, header, "trace", "strategy", "start", "delayed",
        "max del s", "p99 del s", "exec-s", "x oracle", "changes", "revs", "peak",
        "settle s per step", "actions");
    Map<String, StreamingSimulation.Result> results = new LinkedHashMap<>();
    for (RateTrace trace : RateTrace.all()) {
      List<BatchModel.Batch> batches = model.batches(trace);
      for (long latency : START_LATENCIES) {
        OracleStrategy oracle = new OracleStrategy(model, batches, latency, MAX_EXECUTORS);
        int initial = oracle.initial();
        Map<String, Supplier<Strategy>> strategies = new LinkedHashMap<>();
        strategies.put("static " + oracle.peak(), () -> Strategy.fixed(oracle.peak()));
        strategies.put("spark-rule", () -> new SparkDStreamsRule(model.intervalMillis(),
            MIN_EXECUTORS, MAX_EXECUTORS));
        strategies.put("seed", () -> Strategy.of(StreamingAllocationPolicy.create(
            withInitial(seed, initial))));
        strategies.put("proportional", () -> Strategy.of(StreamingAllocationPolicy.create(
            withInitial(proportional, initial))));
        strategies.put("oracle", () -> oracle);
        Map<String, StreamingSimulation.Result> byStrategy = new LinkedHashMap<>();
        for (var s : strategies.entrySet()) {
          byStrategy.put(s.getKey(), StreamingSimulation.run(model, trace, batches, latency,
              initial, s.getKey(), s.getValue().get()));
        }
        double oracleMillis = byStrategy.get("oracle").executorMillis();
        for (StreamingSimulation.Result r : byStrategy.values()) {
          results.put(key(trace.name(), r.strategy().startsWith("static") ? "static"
              : r.strategy(), latency), r);
          System.out.printf(Locale.ROOT, row, trace.name(), r.strategy(), latency / 1000,
              r.delayed() + "/" + r.batches() + (r.unfinished() > 0 ? "!" : ""),
              r.maxDelayMillis() / 1000.0, r.p99DelayMillis() / 1000.0,
              r.executorMillis() / 1000.0, r.executorMillis() / oracleMillis, r.targetChanges(),
              r.reversals(), r.peakTarget(), join(r.settleMillis()), join(r.actions()));
        }
      }
    }
    System.out.println();
    for (RateTrace trace : RateTrace.all()) {
      System.out.printf(Locale.ROOT, "%-9s %s%n", trace.name(), trace.description());
    }
    System.out.println("(start = container start latency, s; delayed = batches that took longer"
        + " than the interval or started late / all, ! = some never completed; del = scheduling"
        + " delay; exec-s = executor-seconds from each ask to its removal; changes = target"
        + " changes; revs = changes in the opposite direction to the one before; peak = highest"
        + " target; settle = from each step to the end of the last delayed batch or the last"
        + " target change before the next step; actions = target changes in that span;"
        + " static N = the size the trace's busiest batch needs, throughout)");
    System.out.println();
    checkTargets(results);
    for (String arg : args) {
      if (arg.startsWith("show=")) {
        String[] what = arg.substring(5).split(",");
        StreamingSimulation.Result r = results.get(key(what[0], what[1],
            Long.parseLong(what[2]) * 1000));
        System.out.println();
        System.out.println("Target changes, " + String.join(" ", what) + ":");
        r.changeLog().forEach(l -> System.out.println("  " + l));
      }
    }
  }

  private static void checkTargets(Map<String, StreamingSimulation.Result> results) {
    List<String> lines = new ArrayList<>();
    for (long latency : START_LATENCIES) {
      StreamingSimulation.Result p = results.get(key("step", "proportional", latency));
      double ratio = (double) p.executorMillis()
          / results.get(key("step", "oracle", latency)).executorMillis();
      boolean met = p.actions()[0] <= 2 && p.actions()[1] <= 2 && ratio <= 1.15;
      lines.add(String.format(Locale.ROOT, "%s step, %d s start: proportional settles in %d"
          + " (up) and %d (down) actions (<= 2), executor-s %.2fx oracle (<= 1.15)",
          met ? "MET   " : "MISSED", latency / 1000, p.actions()[0], p.actions()[1], ratio));
    }
    for (RateTrace trace : RateTrace.all()) {
      if (!trace.monotone()) {
        continue;
      }
      for (long latency : START_LATENCIES) {
        StreamingSimulation.Result p = results.get(key(trace.name(), "proportional", latency));
        lines.add(String.format(Locale.ROOT, "%s %s, %d s start: proportional reversals %d"
            + " (0)", p.reversals() == 0 ? "MET   " : "MISSED", trace.name(), latency / 1000,
            p.reversals()));
      }
    }
    for (String policy : List.of("seed", "proportional")) {
      List<String> bad = new ArrayList<>();
      for (RateTrace trace : RateTrace.all()) {
        for (long latency : START_LATENCIES) {
          StreamingSimulation.Result r = results.get(key(trace.name(), policy, latency));
          if (r.peakTarget() > MAX_EXECUTORS || r.minHeldAtBatch() < 1 || r.unfinished() > 0) {
            bad.add(trace.name() + "/" + latency / 1000 + "s");
          }
        }
      }
      lines.add(String.format(Locale.ROOT, "%s %s: target never above maxExecutors %d, never"
          + " zero executors at a batch, every batch completed%s", bad.isEmpty() ? "MET   "
              : "MISSED", policy, MAX_EXECUTORS, bad.isEmpty() ? "" : " (not in " + bad + ")"));
    }
    System.out.println("Targets:");
    lines.forEach(l -> System.out.println("  " + l));
  }

  private static String key(String trace, String strategy, long latency) {
    return trace + "|" + strategy + "|" + latency;
  }

  private static String join(long[] millis) {
    if (millis.length == 0) {
      return "-";
    }
    StringBuilder s = new StringBuilder();
    for (long m : millis) {
      s.append(s.length() == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.0f",
          m / 1000.0));
    }
    return s.toString();
  }

  private static String join(int[] counts) {
    if (counts.length == 0) {
      return "-";
    }
    StringBuilder s = new StringBuilder();
    for (int c : counts) {
      s.append(s.length() == 0 ? "" : "/").append(c);
    }
    return s.toString();
  }

  private static StreamingSettings withInitial(StreamingSettings s, int initial) {
    return new StreamingSettings(s.enabled(), s.policy(), s.intervalMillis(), s.minExecutors(),
        s.maxExecutors(), initial, s.tasksPerExecutor(), s.debug(), s.releaseRounds(),
        s.rememberBatchSize(), s.delayRounds(), s.reserveRate(), s.targetUtilization(),
        s.catchUpMillis(), s.scaleDownMargin(), s.scaleDownBatches(), s.maxScaleDownStep());
  }

  private static StreamingSettings overridden(StreamingSettings s, String[] args) {
    double utilization = s.targetUtilization();
    long catchUp = s.catchUpMillis();
    double margin = s.scaleDownMargin();
    int batches = s.scaleDownBatches();
    double step = s.maxScaleDownStep();
    for (String arg : args) {
      if (arg.startsWith("show=") || arg.startsWith("tasks=")) {
        continue;
      }
      String[] kv = arg.split("=", 2);
      switch (kv[0]) {
        case "targetUtilization" -> utilization = Double.parseDouble(kv[1]);
        case "catchUpTime" -> catchUp = Long.parseLong(kv[1]);
        case "scaleDownMargin" -> margin = Double.parseDouble(kv[1]);
        case "scaleDownBatches" -> batches = Integer.parseInt(kv[1]);
        case "maxScaleDownStep" -> step = Double.parseDouble(kv[1]);
        default -> throw new IllegalArgumentException("unknown setting " + arg);
      }
    }
    return new StreamingSettings(s.enabled(), s.policy(), s.intervalMillis(), s.minExecutors(),
        s.maxExecutors(), s.initialExecutors(), s.tasksPerExecutor(), s.debug(),
        s.releaseRounds(), s.rememberBatchSize(), s.delayRounds(), s.reserveRate(), utilization,
        catchUp, margin, batches, step);
  }
}
