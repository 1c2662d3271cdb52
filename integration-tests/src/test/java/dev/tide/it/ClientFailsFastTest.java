package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A command that cannot run is refused by the client, against a real ResourceManager, with the
 * reason and exit code 2, before it asks YARN for anything: the RM lists no new application and
 * hands out the very next application id afterwards, so not even an id was taken. Input and
 * output paths are checked there too, as MapReduce's client checks its output spec.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientFailsFastTest {
  private static EmbeddedCluster cluster;
  private static YarnClient yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    SharedCluster.stop(); // this class starts a cluster of its own
    cluster = EmbeddedCluster.start("tide-fail-fast", 1, Path.of("target", "fail-fast-cluster"));
    yarn = cluster.yarnClient();
    FileSystem fs = cluster.fileSystem();
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/ff/in/words.txt"))) {
      out.write("a b a\n".getBytes(StandardCharsets.UTF_8));
    }
    fs.mkdirs(new org.apache.hadoop.fs.Path("/ff/empty"));
    fs.create(new org.apache.hadoop.fs.Path("/ff/done/part-r-00000")).close();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Stream<Arguments> refusedCommands() {
    return Stream.of(
        Arguments.of("unknown job name", new String[] {"wordcont", "/in", "/out"},
            "tide: unknown job 'wordcont': not a built-in job (kmeans, sleep, sort,"
                + " sortvalidate, stream-rate, stream-wordcount, wordcount)"),
        Arguments.of("a class that is not a TideJob", new String[] {"java.util.ArrayList"},
            "tide: job class java.util.ArrayList does not implement dev.tide.driver.job.TideJob"),
        Arguments.of("wordcount without its output", new String[] {"wordcount", "/in"},
            "tide: usage: wordcount <input path> <output path>; got 1 arguments [/in]"),
        Arguments.of("sleep with a bad count", new String[] {"sleep", "-m", "0"},
            "tide: sleep: counts must be >= 1"),
        Arguments.of("malformed setting", new String[] {"-D", "tide.executor.memory=lots",
            "wordcount", "/in", "/out"}, "tide.executor.memory = 'lots'"),
        Arguments.of("malformed setting after the job",
            new String[] {"sleep", "-D", "tide.dynamicAllocation.maxExecutors=0"},
            "tide.dynamicAllocation.maxExecutors = '0'"),
        Arguments.of("missing --jar", new String[] {"--jar", "missing.jar", "my.Job"},
            "tide: --jar missing.jar: no such file"),
        Arguments.of("missing -libjars", new String[] {"-libjars", "missing-lib.jar",
            "wordcount", "/in", "/out"}, "missing-lib.jar does not exist"),
        Arguments.of("batch and streaming allocation both on", new String[] {"stream-rate",
            "/out", "-D", "tide.dynamicAllocation.enabled=true", "-D",
            "tide.streaming.dynamicAllocation.enabled=true"},
            "batch and streaming dynamic allocation cannot both be active"),
        Arguments.of("streaming interval 0", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.batchInterval=0"}, "tide.streaming.batchInterval = '0': must be"
            + " above 0"),
        Arguments.of("reserveRate outside [0, 1)", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.dynamicAllocation.reserveRate=1"},
            "tide.streaming.dynamicAllocation.reserveRate = '1': must be at least 0 and below 1"),
        Arguments.of("releaseRounds below 1", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.dynamicAllocation.releaseRounds=0"},
            "tide.streaming.dynamicAllocation.releaseRounds = '0'"),
        Arguments.of("rememberBatchSize below 1", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.dynamicAllocation.rememberBatchSize=0"},
            "tide.streaming.dynamicAllocation.rememberBatchSize = '0'"),
        Arguments.of("streaming min above max", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.dynamicAllocation.minExecutors=5", "-D",
            "tide.streaming.dynamicAllocation.maxExecutors=2"},
            "tide.streaming.dynamicAllocation.minExecutors (5) is above"
            + " tide.streaming.dynamicAllocation.maxExecutors (2)"),
        Arguments.of("a bad rate schedule", new String[] {"stream-rate", "/out", "-D",
            "tide.streaming.rate.schedule=fast"}, "tide.streaming.rate.schedule = 'fast'"),
        Arguments.of("stream-wordcount of a missing directory", new String[] {
            "stream-wordcount", "/no-such-dir", "/out"}, "tide: job stream-wordcount: input"
            + " directory hdfs://"),
        Arguments.of("wordcount of a missing input", new String[] {"wordcount", "/ff/none",
            "/ff/out"}, "tide: job wordcount: input path hdfs://"),
        Arguments.of("wordcount of an empty directory", new String[] {"wordcount", "/ff/empty",
            "/ff/out"}, "/ff/empty holds no non-empty files"),
        Arguments.of("wordcount into an existing output", new String[] {"wordcount", "/ff/in",
            "/ff/done"}, "/ff/done already exists"),
        Arguments.of("no job", new String[] {"-D", "tide.queue=default"},
            "tide: no job given"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedCommands")
  void refusedBeforeAnyApplicationExists(String what, String[] args, String message)
      throws Exception {
    int applicationsBefore = yarn.getApplications().size();
    ApplicationId idBefore = yarn.createApplication().getApplicationSubmissionContext()
        .getApplicationId();

    JobRun run = Submitter.run(cluster.clientConf(), System.out, args);

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.output().contains(message), run.output());
    assertTrue(run.output().contains("'tide --help' prints the usage"), run.output());
    assertNull(run.appId(), "no application id was asked for");
    assertEquals(applicationsBefore, yarn.getApplications().size(), "applications on the RM");
    ApplicationId idAfter = yarn.createApplication().getApplicationSubmissionContext()
        .getApplicationId();
    assertEquals(idBefore.getId() + 1, idAfter.getId(), "the RM handed out no id in between");
  }

  @Test
  void helpPrintsUsageAndExits0() throws Exception {
    int applicationsBefore = yarn.getApplications().size();
    for (String help : new String[] {"--help", "-h", "help"}) {
      JobRun run = Submitter.run(cluster.clientConf(), System.out, help);
      assertEquals(0, run.exitCode(), run.output());
      assertTrue(run.output().startsWith("usage: tide [--jar JAR]"), run.output());
      assertTrue(run.output().contains("-libjars a.jar,b.jar"), run.output());
    }
    assertEquals(applicationsBefore, yarn.getApplications().size());
  }

  /**
   * An executor larger than the largest container the ResourceManager grants (here 8 GiB + 128
   * MiB against {@code yarn.scheduler.maximum-allocation-mb} = 8192) can never start: the AM
   * fails the application at registration, naming both sizes and the keys to change, instead of
   * having every allocate refused until it loses contact with the ResourceManager.
   */
  @Test
  void executorLargerThanTheClusterMaximumFailsAtRegistration() throws Exception {
    JobRun run = Submitter.run(cluster.clientConf(), System.out, "-D",
        "tide.executor.memory=8g", "sleep", "-m", "1", "-r", "1", "-mt", "1", "-rt", "1");

    assertNotNull(run.appId(), run.output());
    ApplicationReport report = yarn.getApplicationReport(ApplicationId.fromString(run.appId()));
    assertEquals(FinalApplicationStatus.FAILED, report.getFinalApplicationStatus(),
        report.getDiagnostics());
    String diagnostics = report.getDiagnostics();
    // The RM's maximum is yarn.scheduler.maximum-allocation-mb, or less once it has capped it
    // at the largest NodeManager: the figure is the RM's, whichever it is.
    assertTrue(diagnostics.contains("the executor container <memory:8320, vCores:1> exceeds the"
        + " largest container the ResourceManager grants, <memory:"), diagnostics);
    assertTrue(diagnostics.contains("lower tide.executor.memory + tide.executor.memoryOverhead"
        + " (8192 + 128 MiB) or raise yarn.scheduler.maximum-allocation-mb"), diagnostics);
    assertFalse(diagnostics.contains("lost contact with the ResourceManager"), diagnostics);
    assertTrue(run.output().contains("the executor container <memory:8320, vCores:1> exceeds"),
        run.output());
    assertEquals(1, run.exitCode(), run.output());
  }
}
