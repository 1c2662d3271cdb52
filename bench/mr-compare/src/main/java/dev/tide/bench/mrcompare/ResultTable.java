package dev.tide.bench.mrcompare;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Prints the runs as Markdown tables: every run; Tide / MapReduce per size; how each engine's
 * cost grows from one size to the next; and the targets, met or missed.
 */
final class ResultTable {
  /** Issue 20: Tide at most this fraction of MapReduce's wall time and vcore-seconds. */
  static final double TARGET_RATIO = 0.6;

  private final List<Long> sizes;
  private final List<EngineRun> runs;

  ResultTable(List<Long> sizes, List<EngineRun> runs) {
    this.sizes = sizes;
    this.runs = runs;
  }

  void print(PrintStream out) {
    out.println("## Runs");
    out.println("| input | engine | wall s | RM start-finish s | vcore-s | MB-s | output | app |");
    out.println("|---|---|---|---|---|---|---|---|");
    for (EngineRun run : runs) {
      out.printf(Locale.ROOT, "| %s | %s | %.1f | %.1f | %d | %d | %s | %s |%n",
          BenchSettings.label(run.size()), run.engine(), run.wallMillis() / 1000.0,
          run.usage().rmMillis() / 1000.0, run.usage().vcoreSeconds(),
          run.usage().memoryMbSeconds(), run.outputCheck(), run.appId());
    }

    out.println("## Tide / MapReduce");
    out.println("| input | wall | vcore-s | MB-s |");
    out.println("|---|---|---|---|");
    boolean ratiosMet = true;
    boolean allExact = true;
    for (long size : sizes) {
      EngineRun tide = find("Tide", size);
      EngineRun mr = find("MapReduce", size);
      if (tide == null || mr == null) {
        ratiosMet = false;
        continue;
      }
      allExact &= tide.exact() && mr.exact();
      double wall = ratio(tide.wallMillis(), mr.wallMillis());
      double vcore = ratio(tide.usage().vcoreSeconds(), mr.usage().vcoreSeconds());
      double memory = ratio(tide.usage().memoryMbSeconds(), mr.usage().memoryMbSeconds());
      ratiosMet &= wall <= TARGET_RATIO && vcore <= TARGET_RATIO;
      out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", BenchSettings.label(size), wall,
          vcore, memory);
    }

    out.println("## Growth with the data (cost at the larger size / cost at the smaller)");
    out.println("| engine | input | data | wall | vcore-s | MB-s |");
    out.println("|---|---|---|---|---|---|");
    for (String engine : List.of("Tide", "MapReduce")) {
      for (int i = 1; i < sizes.size(); i++) {
        EngineRun small = find(engine, sizes.get(i - 1));
        EngineRun large = find(engine, sizes.get(i));
        if (small == null || large == null) {
          continue;
        }
        out.printf(Locale.ROOT, "| %s | %s -> %s | x%.2f | x%.2f | x%.2f | x%.2f |%n", engine,
            BenchSettings.label(small.size()), BenchSettings.label(large.size()),
            ratio(large.inputBytes(), small.inputBytes()),
            ratio(large.wallMillis(), small.wallMillis()),
            ratio(large.usage().vcoreSeconds(), small.usage().vcoreSeconds()),
            ratio(large.usage().memoryMbSeconds(), small.usage().memoryMbSeconds()));
      }
    }

    out.println("## Targets (issue 20)");
    out.println("[bench] exact output from both engines at every size: "
        + (allExact ? "MET" : "MISSED"));
    out.printf(Locale.ROOT, "[bench] Tide <= %.1fx MapReduce's wall time and vcore-seconds at"
        + " every size: %s%n", TARGET_RATIO, ratiosMet ? "MET" : "MISSED");
  }

  private EngineRun find(String engine, long size) {
    return runs.stream().filter(r -> r.engine().equals(engine) && r.size() == size).findFirst().orElse(null);
  }

  private static double ratio(long a, long b) {
    return b == 0 ? Double.NaN : (double) a / b;
  }
}
