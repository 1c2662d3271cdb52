package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Data many times bigger than an executor's heap (64 MiB here, half the test cluster's default,
 * so that the data stays many times the heap at half the size to write and move) goes
 * through the bounded-memory data path: sort buffer and spills on the map side, segments on
 * local disk and a streaming merge on the reduce side. Outputs are checked against what the test
 * computes itself; the executors' own peak heap reports stay under their heap.
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class BoundedMemoryTest {
  private static final String EVENTS = "/tide-events-bounded";
  private static final long HEAP = 64L << 20;
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
  }

  private static Configuration jobConf() {
    Configuration conf = EmbeddedCluster.withOptimizingCompiler(cluster.clientConf());
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.executor.memory", (HEAP >> 20) + "m");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "2s");
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    return conf;
  }

  private static List<EventLine> succeededTasks(List<EventLine> events, String kind) {
    return JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> (kind == null || e.get("kind").equals(kind))
            && e.get("result").equals("SUCCEEDED")).toList();
  }

  /**
   * Every executor's own last report of its peak heap use (live data after a full collection)
   * is under its heap, with a margin.
   */
  private static void assertHeapStayedUnder(List<EventLine> tasks) {
    Map<String, EventLine> lastOfExecutor = new java.util.HashMap<>();
    for (EventLine task : tasks) {
      lastOfExecutor.put(task.get("executor"), task);
    }
    for (EventLine task : lastOfExecutor.values()) {
      long peak = task.getLong("peakHeapBytes");
      assertTrue(peak > 0 && peak < HEAP * 9 / 10, "executor " + task.get("executor")
          + " peak heap " + peak + " bytes (task " + task.get("task") + "), heap " + HEAP);
    }
    System.out.println("peak heap by executor: " + lastOfExecutor.values().stream()
        .map(t -> t.get("executor") + "=" + t.get("peakHeapBytes")).toList());
  }

  @Test
  void wordcountOverEightTimesTheHeapInTwoHundredSplits() throws Exception {
    FileSystem fs = cluster.fileSystem();
    Map<String, Long> expected = TextGenerator.write(fs, new org.apache.hadoop.fs.Path(
        "/big/in"), 4, 8 * HEAP / 4 + (1 << 20), 7);
    Configuration conf = jobConf();
    conf.set("tide.wordcount.reducers", "3");
    conf.set("tide.wordcount.splitSize", String.valueOf(HEAP / 128 * 5)); // 200 splits

    JobRun run = Submitter.run(conf, System.out, "wordcount", "/big/in", "/big/out");

    assertEquals(0, run.exitCode(), run.output());
    Map<String, Long> actual = WordCountOutput.read(fs, "/big/out");
    assertEquals(expected, actual);
    List<EventLine> events = run.events(fs, EVENTS);
    List<EventLine> maps = succeededTasks(events, "MAP");
    assertTrue(maps.size() >= 200, maps.size() + " map tasks");
    assertHeapStayedUnder(succeededTasks(events, null));
    System.out.printf("bounded wordcount: %d maps, %d words, %d ms%n", maps.size(),
        actual.size(), run.wallMillis());
  }

  @Test
  void oneMapOutputAndOneReducePartitionOfFourTimesTheHeap() throws Exception {
    FileSystem fs = cluster.fileSystem();
    long records = 4 * HEAP / (GeneratedRecordsJob.KEY_BYTES + GeneratedRecordsJob.VALUE_BYTES
        + 2) + 100_000;
    JobRun run = Submitter.run(jobConf(), System.out, GeneratedRecordsJob.class.getName(),
        "1", String.valueOf(records), "/gen/out");

    assertEquals(0, run.exitCode(), run.output());
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        fs.open(new org.apache.hadoop.fs.Path("/gen/out/part-r-00000")),
        StandardCharsets.UTF_8))) {
      assertEquals(GeneratedRecordsJob.expected(1, records), in.readLine() + "\n");
    }
    List<EventLine> events = run.events(fs, EVENTS);
    EventLine map = succeededTasks(events, "MAP").get(0);
    EventLine reduce = succeededTasks(events, "REDUCE").get(0);
    assertTrue(map.getLong("outputBytes") >= 4 * HEAP, "map output " + map.getLong(
        "outputBytes"));
    assertTrue(map.getLong("spills") > 4, "the sort buffer spilled: " + map.get("spills"));
    assertTrue(reduce.getLong("bytesFetched") >= 4 * HEAP);
    assertTrue(reduce.getLong("fetchedToDiskBytes") > 3 * HEAP,
        "most of the partition went to local disk: " + reduce.get("fetchedToDiskBytes"));
    assertHeapStayedUnder(List.of(map, reduce));
    System.out.printf("bounded shuffle: %d records, map output %d B in %s spills (%s B"
        + " spilled), reduce fetched %s B (%s B to disk), %d ms%n", records,
        map.getLong("outputBytes"), map.get("spills"), map.get("spilledBytes"),
        reduce.get("bytesFetched"), reduce.get("fetchedToDiskBytes"), run.wallMillis());
  }

  /**
   * Also: an executor that ran out of heap exits 52; the AM counts that as an executor failure
   * (DESIGN.md "Container outcome") but not against its node, which one such failure would
   * otherwise exclude here (tide.yarn.maxFailuresPerHost = 1).
   */
  @Test
  void reducerThatKeepsEverythingFailsTheJobNamingTheSettingWithoutMapReruns() throws Exception {
    FileSystem fs = cluster.fileSystem();
    Configuration conf = jobConf();
    conf.set("tide.task.maxAttempts", "2");
    conf.set("tide.yarn.maxFailuresPerHost", "1");
    long records = 2 * HEAP / (GeneratedRecordsJob.KEY_BYTES + GeneratedRecordsJob.VALUE_BYTES);

    JobRun run = Submitter.run(conf, System.out, GeneratedRecordsJob.class.getName(),
        "2", String.valueOf(records / 2), "/keep/out", "keep");

    assertNotEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("reduce 0 failed 2 times")
        && run.output().contains("OutOfMemoryError")
        && run.output().contains("raise tide.executor.memory (now " + (HEAP >> 20) + "m)"),
        run.output());
    List<EventLine> events = run.events(fs, EVENTS);
    long mapAttempts = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> e.get("kind").equals("MAP")).count();
    assertEquals(2, mapAttempts, "no map was rerun");
    long reduceAttempts = JobRun.named(events, EventName.TASK_END).stream()
        .filter(e -> e.get("kind").equals("REDUCE")).count();
    assertEquals(2, reduceAttempts, "tide.task.maxAttempts attempts of the reducer");
    List<EventLine> outOfHeap = JobRun.named(events, EventName.CONTAINER_COMPLETED).stream()
        .filter(e -> e.get("exitStatus").equals("52")).toList();
    assertFalse(outOfHeap.isEmpty(), "an executor exited 52: " + events);
    for (EventLine exit : outOfHeap) {
      assertEquals("true", exit.get("failure"), exit.toString());
      assertTrue(exit.get("diagnostics").contains("ran out of heap"), exit.toString());
    }
    assertEquals(List.of(), JobRun.named(events, EventName.NODE_EXCLUDED), "no node excluded");
  }
}
