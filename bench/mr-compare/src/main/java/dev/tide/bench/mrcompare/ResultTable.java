package dev.tide.bench.mrcompare;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Prints the runs of one workload as Markdown tables: every run; Tide / MapReduce per size; how
 * each engine's cost grows from one size to the next; and the issues' targets, met or missed.
 */
final class ResultTable {
  /** Issue 20 (wordcount) and "Data bigger than memory" (terasort): wall and vcore-s ratio. */
  static final double TARGET_RATIO = 0.6;
  /** "Your own jobs on Tide" (terasort): Tide's wall time at most this fraction of MR's. */
  static final double OWN_JOBS_WALL_RATIO = 0.7;

  private final String workload;
  private final List<Long> sizes;
  private final List<EngineRun> runs;

  ResultTable(String workload, List<Long> sizes, List<EngineRun> runs) {
    this.workload = workload;
    this.sizes = sizes;
    this.runs = runs;
  }

  /** Whether every run succeeded with a right output. */
  boolean allRight() {
    return runs.stream().allMatch(EngineRun::exact);
  }

  void print(PrintStream out) {
    out.println("## Runs (" + workload + ")");
    out.println("| input | engine | wall s | RM start-finish s | vcore-s | MB-s | output"
        + " | load before -> after (1 min) | app |");
    out.println("|---|---|---|---|---|---|---|---|---|");
    for (EngineRun run : runs) {
      out.printf(Locale.ROOT, "| %s | %s | %.1f | %.1f | %d | %d | %s | %s -> %s | %s |%n",
          BenchSettings.label(run.size()), run.engine(), run.wallMillis() / 1000.0,
          run.usage().rmMillis() / 1000.0, run.usage().vcoreSeconds(),
          run.usage().memoryMbSeconds(), run.outputCheck(), firstField(run.loadBefore()),
          firstField(run.loadAfter()), run.appId());
    }

    out.println("## Tide / MapReduce");
    out.println("| input | wall | vcore-s | MB-s |");
    out.println("|---|---|---|---|");
    boolean ratiosMet = true;
    boolean ownJobsMet = true;
    boolean allExact = true;
    for (long size : sizes) {
      EngineRun tide = find("Tide", size);
      EngineRun mr = find("MapReduce", size);
      if (tide == null || mr == null) {
        ratiosMet = false;
        ownJobsMet = false;
        allExact = false;
        continue;
      }
      allExact &= tide.exact() && mr.exact();
      double wall = ratio(tide.wallMillis(), mr.wallMillis());
      double vcore = ratio(tide.usage().vcoreSeconds(), mr.usage().vcoreSeconds());
      double memory = ratio(tide.usage().memoryMbSeconds(), mr.usage().memoryMbSeconds());
      ratiosMet &= wall <= TARGET_RATIO && vcore <= TARGET_RATIO;
      ownJobsMet &= wall <= OWN_JOBS_WALL_RATIO && vcore <= TARGET_RATIO;
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

    if (workload.equals("terasort")) {
      printSortTargets(out, allExact, ownJobsMet, ratiosMet);
      return;
    }
    out.println("## Targets (issue 20)");
    out.println("[bench] exact output from both engines at every size: "
        + (allExact ? "MET" : "MISSED"));
    out.printf(Locale.ROOT, "[bench] Tide <= %.1fx MapReduce's wall time and vcore-seconds at"
        + " every size: %s%n", TARGET_RATIO, ratiosMet ? "MET" : "MISSED");
  }

  private void printSortTargets(PrintStream out, boolean allValid, boolean ownJobsMet,
      boolean ratiosMet) {
    out.println("## Targets (terasort)");
    out.println("[bench] both outputs valid at every size (TeraValidate: no errors, checksum ="
        + " input's TeraChecksum): " + (allValid ? "MET" : "MISSED"));
    out.printf(Locale.ROOT, "[bench] \"Your own jobs on Tide\": Tide <= %.1fx MapReduce's wall"
        + " time and <= %.1fx its vcore-seconds at every size: %s%n", OWN_JOBS_WALL_RATIO,
        TARGET_RATIO, ownJobsMet ? "MET" : "MISSED");
    out.printf(Locale.ROOT, "[bench] \"Data bigger than memory\": Tide <= %.1fx MapReduce's wall"
        + " time and vcore-seconds at every size: %s%n", TARGET_RATIO,
        ratiosMet ? "MET" : "MISSED");
    EngineRun oneGiB = find("Tide", 1L << 30);
    EngineRun fourGiB = find("Tide", 4L << 30);
    if (oneGiB == null || fourGiB == null) {
      out.println("[bench] \"Data bigger than memory\": Tide's cost from 1 GiB to 4 GiB grows no"
          + " faster than the data: NOT MEASURED (needs sizes 1g and 4g)");
    } else {
      double data = ratio(fourGiB.inputBytes(), oneGiB.inputBytes());
      boolean linear = ratio(fourGiB.wallMillis(), oneGiB.wallMillis()) <= data
          && ratio(fourGiB.usage().vcoreSeconds(), oneGiB.usage().vcoreSeconds()) <= data
          && ratio(fourGiB.usage().memoryMbSeconds(), oneGiB.usage().memoryMbSeconds()) <= data;
      out.println("[bench] \"Data bigger than memory\": Tide's cost (wall, vcore-s, MB-s) from"
          + " 1 GiB to 4 GiB grows no faster than the data: " + (linear ? "MET" : "MISSED"));
    }
  }

  private static String firstField(String loadAverage) {
    return loadAverage.isEmpty() ? "-" : loadAverage.split("\\s+")[0];
  }

  private EngineRun find(String engine, long size) {
    return runs.stream().filter(r -> r.engine().equals(engine) && r.size() == size).findFirst().orElse(null);
  }

  private static double ratio(long a, long b) {
    return b == 0 ? Double.NaN : (double) a / b;
  }
}
