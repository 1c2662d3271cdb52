package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.testing.Await;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jobs whose plan is more than map -> reduce ({@link DagJob}), submitted through the real client
 * to a MiniYARNCluster (3 NodeManagers with the real tide_shuffle service): a chain of three
 * shuffle stages, a join of two inputs, an intermediate stage's output lost mid-job, a failed
 * job that must leave no output, and the built-in {@code sort} (range-partitioned total order)
 * checked by the test and by the built-in {@code sortvalidate}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DagJobTest {
  private static final String EVENTS = "/tide-events-dag";
  /** The file the lost-output test creates once it has deleted the map output. */
  private static final String LOST_GATE = "/dag/lost-gate";
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
  }

  private static Configuration jobConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.maxExecutors", "3");
    return conf;
  }

  @Test
  void chainOfThreeShuffleStagesGivesExactlyTheIndependentResult() throws Exception {
    JobRun run = Submitter.run(jobConf(), System.out, DagJob.class.getName(), "chain", "6",
        "20000", "/dag/chain");
    assertEquals(0, run.exitCode(), run.output());
    FileSystem fs = cluster.fileSystem();
    assertEquals(DagJob.expectedChain(6, 20000), lines(fs, "/dag/chain"));
    assertEquals(List.of("_SUCCESS", "part-r-00000"), names(fs, "/dag/chain"),
        "committed: no _temporary left");
    List<EventLine> events = run.events(fs, EVENTS);
    assertEquals(List.of("words", "count", "byCount", "total"),
        JobRun.named(events, EventName.STAGE_COMPLETED).stream().map(e -> e.get("name")).toList());
    assertEquals("4", JobRun.named(events, EventName.PLAN_START).get(0).get("stages"));
    assertTrue(run.output().contains(" RUNNING stage 1/4, "), "the progress line counts the"
        + " plan's stages: " + run.output());
  }

  @Test
  void joinOfTwoInputsGivesExactlyTheIndependentResult() throws Exception {
    JobRun run = Submitter.run(jobConf(), System.out, DagJob.class.getName(), "join", "4",
        "5", "/dag/join");
    assertEquals(0, run.exitCode(), run.output());
    List<String> got = lines(cluster.fileSystem(), "/dag/join");
    got.sort(null);
    List<String> expected = DagJob.expectedJoin(4, 5);
    assertTrue(expected.size() > 200, "the test joins a few hundred users: " + expected.size());
    assertEquals(expected, got);
  }

  @Test
  void lostOutputOfAnIntermediateStageIsRecomputed() throws Exception {
    CompletableFuture<JobRun> job = CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(jobConf(), System.out, DagJob.class.getName(), "chain", "4",
            "5000", "/dag/lost", LOST_GATE);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FileSystem fs = cluster.fileSystem();
    // Once stage 2 ('byCount') has started (its tasks wait for the gate file before reading),
    // delete the output of stage 1 ('count') task 0 from the NodeManager's disk.
    String appId = Await.value(Duration.ofSeconds(120), "stage 2 started", () -> {
      String running = appRunningStage(fs, "2");
      assertTrue(running != null || !job.isDone(), "stage 2 started");
      return running;
    });
    int deleted = 0;
    for (boolean index : new boolean[] {false, true}) {
      for (java.nio.file.Path file : mapOutputFiles(appId, 1, 0, index)) {
        if (Files.deleteIfExists(file)) {
          deleted++;
        }
      }
    }
    assertEquals(2, deleted, "stage 1 task 0's data and index files were found and deleted");
    fs.create(new org.apache.hadoop.fs.Path(LOST_GATE)).close();
    JobRun run = job.get(180, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(DagJob.expectedChain(4, 5000), lines(fs, "/dag/lost"));
    List<EventLine> events = run.events(fs, EVENTS);
    assertEquals(List.of("1:0"), JobRun.named(events, EventName.MAP_OUTPUT_LOST).stream()
        .map(e -> e.get("stage") + ":" + e.get("map")).toList());
    assertEquals(2, JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("stage")
        .equals("1") && e.get("index").equals("0") && e.get("result").equals("SUCCEEDED"))
        .count(), "stage 1 task 0 ran again");
    assertEquals(4, JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("stage")
        .equals("0") && e.get("result").equals("SUCCEEDED")).count(),
        "no map of stage 0 ran again: their outputs were all there");
  }

  @Test
  void aByteFlippedInAMapOutputOnDiskIsDiagnosedDiskRerunsThatMapOnceAndTheOutputIsExact()
      throws Exception {
    JobRun run = runWithDamage("/dag/flip-data", jobConf(), false);
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(DagJob.expectedChain(4, 5000), lines(cluster.fileSystem(), "/dag/flip-data"));
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    EventLine lost = assertDiagnosedDisk(events);
    assertTrue(lost.get("detail").contains("corrupt block (the file on the node's disk is"
        + " damaged)") && lost.get("detail").contains("read from disk again"),
        lost.get("detail"));
    assertMapRanOnceMore(events);
  }

  @Test
  void aByteFlippedInAMapOutputIndexIsDiagnosedDiskAndTheMapRerunsOnce() throws Exception {
    JobRun run = runWithDamage("/dag/flip-index", jobConf(), true);
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(DagJob.expectedChain(4, 5000), lines(cluster.fileSystem(), "/dag/flip-index"));
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    EventLine lost = assertDiagnosedDisk(events);
    assertTrue(lost.get("detail").contains("CORRUPT")
        && lost.get("detail").contains("fails its checksum"), lost.get("detail"));
    assertMapRanOnceMore(events);
  }

  /**
   * Exactly one mapOutputLost, for stage 1 map 0, naming the shuffle, the reader's partition,
   * the host and the cause {@code disk}; the reduce task's failure (its taskEnd) says the same.
   */
  private static EventLine assertDiagnosedDisk(List<EventLine> events) {
    List<EventLine> lost = JobRun.named(events, EventName.MAP_OUTPUT_LOST);
    assertEquals(List.of("1:0"), lost.stream().map(e -> e.get("stage") + ":" + e.get("map"))
        .toList());
    EventLine e = lost.get(0);
    System.out.println("diagnosis: " + e);
    assertEquals("disk", e.get("cause"), e.toString());
    assertEquals("1", e.get("shuffle"));
    assertTrue(e.get("reader").startsWith("reduce " + e.get("partition") + " "), e.toString());
    assertTrue(!e.get("host").isEmpty() && Integer.parseInt(e.get("port")) > 0, e.toString());
    assertTrue(e.get("detail").startsWith("shuffle 1 map 0 partition " + e.get("partition")
        + " from " + e.get("host") + ":" + e.get("port") + " lost (cause: disk): "),
        e.get("detail"));
    // Reducers of other partitions that read the damaged file before the rerun fail alike.
    List<EventLine> fetchFailed = JobRun.named(events, EventName.TASK_END).stream()
        .filter(t -> t.get("result").equals("FETCH_FAILED")).toList();
    assertTrue(fetchFailed.stream().allMatch(t -> t.get("cause").equals("disk")),
        fetchFailed.toString());
    EventLine reader = fetchFailed.stream().filter(t -> t.get("index").equals(e.get("partition"))
        && t.get("reason").equals(e.get("detail"))).findFirst().orElseThrow();
    System.out.println("reduce task failure: " + reader);
    return e;
  }

  private static void assertMapRanOnceMore(List<EventLine> events) {
    assertEquals(2, JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("stage")
        .equals("1") && e.get("index").equals("0") && e.get("result").equals("SUCCEEDED"))
        .count(), "stage 1 task 0 ran exactly once more");
  }

  @Test
  void withChecksumsOffTheSameFlipIsNotCaught() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.executor.shuffle.checksum.enabled", "false");
    conf.set("tide.task.maxAttempts", "2");
    JobRun run = runWithDamage("/dag/flip-unchecked", conf, false);
    FileSystem fs = cluster.fileSystem();
    boolean exact = run.exitCode() == 0
        && DagJob.expectedChain(4, 5000).equals(lines(fs, "/dag/flip-unchecked"));
    assertFalse(exact, "without checksums the damaged byte must show (wrong output or a failed"
        + " job); exit " + run.exitCode());
    assertTrue(JobRun.named(run.events(fs, EVENTS), EventName.MAP_OUTPUT_LOST).isEmpty(),
        "nothing noticed the damage as a lost map output");
    System.out.println("checksums off: exit " + run.exitCode()
        + (run.exitCode() == 0 ? ", wrong output" : ", job failed"));
  }

  /**
   * Runs the chain job and, once stage 2 has started (its tasks wait for a gate file before
   * reading), flips one byte in the middle of stage 1 task 0's data file (or index) on its
   * NodeManager's disk, then opens the gate.
   */
  private static JobRun runWithDamage(String output, Configuration conf, boolean index)
      throws Exception {
    CompletableFuture<JobRun> job = CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(conf, System.out, DagJob.class.getName(), "chain", "4", "5000",
            output, output + "-gate");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FileSystem fs = cluster.fileSystem();
    String appId = Await.value(Duration.ofSeconds(120), "stage 2 started", () -> {
      String running = appRunningStage(fs, "2");
      assertTrue(running != null || !job.isDone(), "stage 2 started");
      return running;
    });
    List<java.nio.file.Path> files = mapOutputFiles(appId, 1, 0, index);
    assertEquals(1, files.size(), "the file is on one NodeManager");
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(files.get(0),
        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      long at = ch.size() / 2;
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x20)).rewind();
      ch.write(one, at);
    }
    fs.create(new org.apache.hadoop.fs.Path(output + "-gate")).close();
    return job.get(180, TimeUnit.SECONDS);
  }

  /** The data (or index) files of one map output on the NodeManagers' disks. */
  private static List<java.nio.file.Path> mapOutputFiles(String appId, int shuffle, int map,
      boolean index) throws Exception {
    List<java.nio.file.Path> found = new ArrayList<>();
    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    for (int i = 0; i < 3; i++) {
      NodeManager nm = cluster.yarn().getNodeManager(i);
      for (String dir : nm.getConfig().getTrimmedStrings("yarn.nodemanager.local-dirs")) {
        java.nio.file.Path appDir = ShuffleLayout.appLocalDir(java.nio.file.Path.of(dir), user,
            appId);
        java.nio.file.Path file = index ? ShuffleLayout.indexFile(appDir, shuffle, map)
            : ShuffleLayout.dataFile(appDir, shuffle, map);
        if (Files.exists(file)) {
          found.add(file);
        }
      }
    }
    return found;
  }

  @Test
  void failedJobLeavesNoOutput() throws Exception {
    Configuration conf = jobConf();
    conf.set("tide.task.maxAttempts", "1");
    JobRun run = Submitter.run(conf, System.out, DagJob.class.getName(), "join", "2", "2",
        "/dag/failed", "2");
    assertNotEquals(0, run.exitCode(), run.output());
    assertTrue(run.output().contains("join partition 2 fails, as asked"), run.output());
    FileSystem fs = cluster.fileSystem();
    List<EventLine> events = run.events(fs, EVENTS);
    assertEquals(2, JobRun.named(events, EventName.TASK_END).stream().filter(e -> e.get("stage")
        .equals("2") && e.get("result").equals("SUCCEEDED")).count(),
        "the other two partitions committed their files before the job failed");
    assertFalse(fs.exists(new Path("/dag/failed")), "a failed job leaves no output directory");
  }

  @Test
  void sortOutputIsCompleteAndGloballyOrderedAndSortvalidateAgrees() throws Exception {
    FileSystem fs = cluster.fileSystem();
    long[] expected = new long[2]; // records, sum of CRC32 per record
    int[] perFile = {60_000, 50_000, 40_000};
    for (int f = 0; f < perFile.length; f++) {
      writeRecords(fs, new Path("/sort/in/file-" + f), perFile[f], f, expected);
    }
    fs.mkdirs(new Path("/sort/in-partial"));
    fs.rename(new Path("/sort/in/file-2"), new Path("/sort/in-partial/file-2"));
    writeRecords(fs, new Path("/sort/in/file-2"), perFile[2], 2, new long[2]);
    Configuration conf = jobConf();
    conf.set("tide.sort.reducers", "4");
    JobRun run = Submitter.run(conf, System.out, "sort", "/sort/in", "/sort/out");
    assertEquals(0, run.exitCode(), run.output());

    List<String> parts = names(fs, "/sort/out").stream().filter(n -> n.startsWith("part-"))
        .toList();
    assertEquals(List.of("part-r-00000", "part-r-00001", "part-r-00002", "part-r-00003"), parts);
    byte[] previous = null;
    long records = 0;
    long checksum = 0;
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    for (String part : parts) {
      byte[] bytes;
      try (var in = fs.open(new Path("/sort/out", part))) {
        bytes = in.readAllBytes();
      }
      assertEquals(0, bytes.length % 100, part + " holds whole records");
      assertTrue(bytes.length >= 100 * 10_000, part + " holds a fair share of a range: "
          + bytes.length / 100 + " records");
      for (int at = 0; at < bytes.length; at += 100) {
        byte[] key = java.util.Arrays.copyOfRange(bytes, at, at + 10);
        if (previous != null) {
          assertTrue(java.util.Arrays.compareUnsigned(previous, key) <= 0,
              "record " + records + " (" + part + ") is in key order");
        }
        previous = key;
        crc.reset();
        crc.update(bytes, at, 100);
        checksum += crc.getValue();
        records++;
      }
    }
    assertEquals(expected[0], records, "every record is in the output once");
    assertEquals(expected[1], checksum, "the records are the input's, unchanged");

    JobRun valid = Submitter.run(jobConf(), System.out, "sortvalidate", "/sort/in", "/sort/out",
        "/sort/report");
    assertEquals(0, valid.exitCode(), valid.output());
    String report = String.join("\n", lines(fs, "/sort/report"));
    assertEquals("records " + expected[0] + "\nchecksum " + Long.toHexString(expected[1])
        + "\nfiles 4\nordered yes", report);

    JobRun invalid = Submitter.run(jobConf(), System.out, "sortvalidate", "/sort/in-partial",
        "/sort/out", "/sort/report-bad");
    assertNotEquals(0, invalid.exitCode(), invalid.output());
    assertTrue(invalid.output().contains("the sorted output has " + expected[0]
        + " records, the input " + perFile[2]), invalid.output());
    assertFalse(fs.exists(new Path("/sort/report-bad")));
  }

  /**
   * Writes {@code n} 100-byte records (10-byte key, 90-byte value) in 4 MB blocks: random keys,
   * one in ten repeating one of a few keys, so that equal keys and high (unsigned) bytes occur;
   * adds the count and the sum of each record's CRC32 to {@code totals}.
   */
  private static void writeRecords(FileSystem fs, Path path, int n, long seed, long[] totals)
      throws Exception {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    byte[] record = new byte[100];
    try (var out = new java.io.BufferedOutputStream(fs.create(path, true, 1 << 16, (short) 1,
        4L << 20))) {
      for (int i = 0; i < n; i++) {
        random.nextBytes(record);
        if (random.nextInt(10) == 0) {
          java.util.Arrays.fill(record, 0, 10, (byte) (0x40 + random.nextInt(4)));
        }
        out.write(record);
        crc.reset();
        crc.update(record);
        totals[0]++;
        totals[1] += crc.getValue();
      }
    }
  }

  /** The id of a running application that has started a task of this stage, or null. */
  private static String appRunningStage(FileSystem fs, String stage) throws Exception {
    for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
      if (JobRun.named(events, EventName.TASK_START).stream()
          .anyMatch(e -> stage.equals(e.get("stage")))) {
        return JobRun.appId(events);
      }
    }
    return null;
  }

  private static List<String> lines(FileSystem fs, String dir) throws Exception {
    return JobRun.outputLines(fs, dir);
  }

  private static List<String> names(FileSystem fs, String dir) throws Exception {
    List<String> names = new ArrayList<>();
    for (FileStatus status : fs.listStatus(new Path(dir))) {
      names.add(status.getPath().getName());
    }
    names.sort(null);
    return names;
  }
}
