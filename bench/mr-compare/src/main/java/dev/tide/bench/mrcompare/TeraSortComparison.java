package dev.tide.bench.mrcompare;

import java.io.PrintStream;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * Tide's {@code sort} beside MapReduce's TeraSort over the same TeraGen data. Per size, ascending:
 * TeraGen writes {@code size / 100} records in {@code size / fileBytes} files (one block each);
 * TeraChecksum sums the input; both engines sort it into their own directory (which goes first
 * alternates from size to size), each measured like the wordcount runs; then TeraValidate checks
 * each output (no "error" lines, and its checksum equals the input's), and, if configured,
 * Tide's own {@code sortvalidate} checks Tide's. The input is deleted after its size.
 * Used by the benchmark's main thread.
 */
final class TeraSortComparison {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(40);
  private static final long WARM_UP_BYTES = 8L << 20;

  private final BenchSettings settings;
  private final SideBySideCluster cluster;
  private final PrintStream log;
  private final TeraTools tera;
  private final TideSort tide;
  private final MapReduceTeraSort mapReduce;
  private final List<String> validation = new ArrayList<>();

  TeraSortComparison(BenchSettings settings, SideBySideCluster cluster, YarnClient yarn,
      PrintStream log) {
    this.settings = settings;
    this.cluster = cluster;
    this.log = log;
    this.tera = new TeraTools(cluster);
    this.tide = new TideSort(cluster, yarn, log);
    this.mapReduce = new MapReduceTeraSort(cluster, yarn, log);
  }

  /** What each validation found, one line per output, in the order they ran. */
  List<String> validation() {
    return List.copyOf(validation);
  }

  /** Runs every size; a run whose output is not valid says so in its {@code outputCheck}. */
  List<EngineRun> run() throws Exception {
    if (settings.warmUp()) {
      // Unreported: TeraGen, TeraChecksum, TeraValidate and both sorts once, small.
      for (EngineRun run : sizeRuns(WARM_UP_BYTES, "warm", 2, true, false)) {
        log.printf("[bench] warm-up terasort %s: %d ms, %s%n", run.engine(), run.wallMillis(),
            run.outputCheck());
      }
      validation.clear();
    }
    List<EngineRun> runs = new ArrayList<>();
    for (int i = 0; i < settings.sizes().size(); i++) {
      long size = settings.sizes().get(i);
      runs.addAll(sizeRuns(size, (size >> 20) + "m", settings.files(size), i % 2 == 0, true));
    }
    return runs;
  }

  private List<EngineRun> sizeRuns(long size, String name, int files, boolean tideFirst,
      boolean measured) throws Exception {
    FileSystem fs = cluster.fileSystem();
    Path input = new Path("/tera/in-" + name);
    long rows = size / TeraTools.RECORD_BYTES;
    long genStart = System.nanoTime();
    tera.generate(rows, files, input, settings.blockBytes());
    long genMillis = (System.nanoTime() - genStart) / 1_000_000;
    long inputBytes = fs.getContentSummary(input).getLength();
    String inputChecksum = tera.checksum(input, new Path("/tera/report-in-" + name));
    log.printf("[bench] terasort input %s: %d records in %d files, %d bytes, generated in %d ms,"
        + " TeraChecksum %s%n", name, rows, fs.listStatus(input,
            p -> p.getName().startsWith("part-")).length, inputBytes, genMillis, inputChecksum);
    List<EngineRun> runs = new ArrayList<>();
    for (int turn = 0; turn < 2; turn++) {
      boolean tideTurn = tideFirst == (turn == 0);
      String engine = tideTurn ? "Tide" : "MapReduce";
      String output = "/tera/" + (tideTurn ? "tide-" : "mr-") + name;
      if (measured) {
        LoadAverage.awaitBelow(settings.quietLoad(), settings.quietWaitSeconds(),
            engine + " terasort " + BenchSettings.label(size), log);
      }
      String loadBefore = LoadAverage.now();
      EngineRun run = tideTurn
          ? tide.run(size, inputBytes, input.toString(), output, RUN_TIMEOUT)
          : mapReduce.run(size, inputBytes, input.toString(), output, RUN_TIMEOUT);
      run = run.withLoad(loadBefore, LoadAverage.now());
      log.printf("[bench] %s terasort %s: wall %d ms, RM %d ms, %d vcore-s, %d MB-s; load"
          + " before %s, after %s%n", engine, BenchSettings.label(size), run.wallMillis(),
          run.usage().rmMillis(), run.usage().vcoreSeconds(), run.usage().memoryMbSeconds(),
          run.loadBefore(), run.loadAfter());
      if (run.tideTasks() != null) {
        run.tideTasks().describe().forEach(line -> log.println("[bench]   " + line));
      }
      if (run.usage().succeeded() && run.outputCheck().equals("not validated")) {
        run = run.withCheck(check(engine, name, input, output, inputChecksum));
      }
      log.printf("[bench] %s terasort %s output: %s%n", engine, BenchSettings.label(size),
          run.outputCheck());
      runs.add(run);
    }
    for (String dir : List.of("/tera/tide-" + name, "/tera/mr-" + name, input.toString())) {
      fs.delete(new Path(dir), true);
    }
    return runs;
  }

  /**
   * TeraValidate of {@code output}: "valid" when it reports no error and its checksum equals
   * TeraChecksum's of the input; then Tide's sortvalidate of Tide's output, if configured, whose
   * result is recorded but decides nothing.
   */
  private String check(String engine, String name, Path input, String output,
      String inputChecksum) throws Exception {
    String prefix = engine.equals("Tide") ? "tide-" : "mr-";
    TeraTools.Validation v = tera.validate(new Path(output),
        new Path("/tera/report-" + prefix + name));
    String verdict;
    if (!v.errors().isEmpty()) {
      verdict = "WRONG: TeraValidate reported " + v.errors().size() + " error lines, first: "
          + v.errors().get(0);
    } else if (!sameHex(v.checksum(), inputChecksum)) {
      verdict = "WRONG: TeraValidate checksum " + v.checksum() + " != input's TeraChecksum "
          + inputChecksum;
    } else {
      verdict = "valid";
    }
    validation.add(String.format("%s %s: TeraValidate %s errors, checksum %s; input's"
        + " TeraChecksum %s -> %s", engine, name, v.errors().size(), v.checksum(),
        inputChecksum, verdict));
    if (engine.equals("Tide") && settings.tideSortValidate()) {
      String own = tide.validate(input.toString(), output, "/tera/report-sortvalidate-" + name);
      validation.add("Tide " + name + ": Tide's sortvalidate: " + own);
      log.println("[bench] Tide's sortvalidate of Tide's output " + name + ": " + own);
    }
    return verdict;
  }

  private static boolean sameHex(String a, String b) {
    try {
      return !a.isEmpty() && new BigInteger(a, 16).equals(new BigInteger(b, 16));
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
