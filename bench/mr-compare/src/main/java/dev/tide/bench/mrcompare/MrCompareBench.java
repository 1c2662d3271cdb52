package dev.tide.bench.mrcompare;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * Tide beside MapReduce on one MiniYARNCluster whose two NodeManagers load both shuffle
 * services, over the same data in one MiniDFSCluster, with the same container sizes, JVM
 * options, classpath and number of reducers ({@link SideBySideCluster}). Two workloads
 * ({@code workload=wordcount}, the default, {@code terasort} or {@code both}):
 *
 * <ul>
 *   <li>issue 20's wordcount: Tide's {@code wordcount} and MapReduce's WordCount (with its
 *       combiner). For each input size, ascending, it grows the input ({@link GrowingInput}),
 *       runs both engines one after the other (which goes first alternates from size to size)
 *       and checks that the output equals the generator's word counts;
 *   <li>terasort: Tide's {@code sort} and MapReduce's TeraSort over the same TeraGen data,
 *       both outputs checked by TeraValidate against the input's TeraChecksum
 *       ({@link TeraSortComparison}).
 * </ul>
 *
 * <p>Per run it records the wall time from submission to the RM reporting the application
 * ended, YARN's vcore-seconds and MB-seconds and the load average before and after. One small
 * unreported pair runs first to warm the cluster's JVM. Prints the tables of
 * {@link ResultTable}; lines meant for the terminal start with {@code [bench]}, {@code |} or
 * {@code ##}. Exits 0 when every run finished with a right output (met targets or not), 1
 * otherwise.
 */
public final class MrCompareBench {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(45);
  private static final long SEED = 20;

  private MrCompareBench() {}

  public static void main(String[] args) {
    try {
      run(BenchSettings.parse(args));
      System.exit(0);
    } catch (Throwable e) {
      System.err.println("[bench] FAILED: " + e);
      e.printStackTrace();
      System.out.println("[bench] FAILED: " + e);
      System.exit(1);
    }
  }

  private static void run(BenchSettings settings) throws Exception {
    PrintStream log = System.out;
    log.println("[bench] " + settings);
    log.println("[bench] load before: " + LoadAverage.now() + " at " + Instant.now());
    try (SideBySideCluster cluster = SideBySideCluster.start(settings)) {
      // A stop of the JVM (run.sh's timeout) still stops the NodeManagers, which kill their
      // containers.
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "mr-compare-stop"));
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(cluster.tideConf());
      yarn.start();
      List<String> wrong = new ArrayList<>();
      try {
        if (settings.runs("wordcount")) {
          ResultTable table = new ResultTable("wordcount", settings.sizes(),
              runWordCount(settings, cluster, yarn, log));
          table.print(log);
          if (!table.allRight()) {
            wrong.add("wordcount");
          }
        }
        if (settings.runs("terasort")) {
          TeraSortComparison sorts = new TeraSortComparison(settings, cluster, yarn, log);
          List<EngineRun> runs = sorts.run();
          ResultTable table = new ResultTable("terasort", settings.sizes(), runs);
          table.print(log);
          printSortDetails(runs, sorts.validation(), log);
          if (!table.allRight()) {
            wrong.add("terasort");
          }
        }
        if (settings.workload().equals("checksums")) {
          List<ChecksumComparison.Run> runs = new ChecksumComparison(settings, cluster, yarn, log)
              .run();
          if (!ChecksumComparison.print(runs, settings.sizes(), log)) {
            wrong.add("checksums");
          }
        }
      } finally {
        yarn.stop();
      }
      if (!wrong.isEmpty()) {
        throw new IllegalStateException("wrong or missing output in " + wrong + ": see the"
            + " output column of the tables above");
      }
    }
    log.println("[bench] load after: " + LoadAverage.now() + " at " + Instant.now());
  }

  private static void printSortDetails(List<EngineRun> runs, List<String> validation,
      PrintStream log) {
    log.println("## Validation (terasort)");
    validation.forEach(line -> log.println("[bench] " + line));
    log.println("## Tide's tasks (event log; terasort)");
    for (EngineRun run : runs) {
      if (run.tideTasks() != null) {
        log.printf("[bench] %s, %s: peak heap of any task %d MiB%n",
            BenchSettings.label(run.size()), run.appId(), run.tideTasks().peakHeapBytes() >> 20);
        run.tideTasks().describe().forEach(line -> log.println("[bench]   " + line));
      }
    }
  }

  private static List<EngineRun> runWordCount(BenchSettings settings, SideBySideCluster cluster,
      YarnClient yarn, PrintStream log) throws Exception {
    TideWordCount tide = new TideWordCount(cluster, yarn, log);
    MapReduceWordCount mapReduce = new MapReduceWordCount(cluster, yarn, log);
    FileSystem fs = cluster.fileSystem();
    try (FileSystem inputFs = cluster.inputFileSystem()) {
      if (settings.warmUp()) {
        GrowingInput warm = new GrowingInput(inputFs, new org.apache.hadoop.fs.Path("/warm"),
            4L << 20, SEED - 1);
        warm.growTo(2);
        for (EngineRun run : List.of(tide.run(8L << 20, warm, "/out/warm-tide", RUN_TIMEOUT),
            mapReduce.run(8L << 20, warm, "/out/warm-mr", RUN_TIMEOUT))) {
          log.printf("[bench] warm-up %s: %d ms, %s%n", run.engine(), run.wallMillis(),
              run.outputCheck());
        }
      }
      GrowingInput input = new GrowingInput(inputFs, new org.apache.hadoop.fs.Path("/in"),
          settings.fileBytes(), SEED);
      List<EngineRun> runs = new ArrayList<>();
      for (int i = 0; i < settings.sizes().size(); i++) {
        long size = settings.sizes().get(i);
        long genStart = System.nanoTime();
        input.growTo(settings.files(size));
        log.printf("[bench] input %s: %d files, %d bytes, %d distinct words, generated in %d"
            + " ms%n", BenchSettings.label(size), settings.files(size), input.bytes(),
            input.expectedCounts().size(), (System.nanoTime() - genStart) / 1_000_000);
        boolean tideFirst = i % 2 == 0;
        for (int turn = 0; turn < 2; turn++) {
          boolean tideTurn = tideFirst == (turn == 0);
          String output = "/out/" + (tideTurn ? "tide-" : "mr-") + (size >> 20) + "m";
          LoadAverage.awaitBelow(settings.quietLoad(), settings.quietWaitSeconds(),
              (tideTurn ? "Tide" : "MapReduce") + " wordcount " + BenchSettings.label(size), log);
          String loadBefore = LoadAverage.now();
          log.println("[bench] load before " + (tideTurn ? "Tide" : "MapReduce") + " at "
              + BenchSettings.label(size) + ": " + loadBefore);
          EngineRun run = (tideTurn ? tide.run(size, input, output, RUN_TIMEOUT)
              : mapReduce.run(size, input, output, RUN_TIMEOUT))
              .withLoad(loadBefore, LoadAverage.now());
          log.printf("[bench] %s %s: wall %d ms, RM %d ms, %d vcore-s, %d MB-s, output %s%n",
              run.engine(), BenchSettings.label(size), run.wallMillis(), run.usage().rmMillis(),
              run.usage().vcoreSeconds(), run.usage().memoryMbSeconds(), run.outputCheck());
          runs.add(run);
          fs.delete(new org.apache.hadoop.fs.Path(output), true);
        }
      }
      return runs;
    }
  }
}
