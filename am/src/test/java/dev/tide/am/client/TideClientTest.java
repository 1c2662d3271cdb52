package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the client does before it contacts YARN: usage and configuration errors exit 2. (A
 * case that got past the checks would wait for a ResourceManager that is not there.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TideClientTest {
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final TideClient client =
      new TideClient(new PrintStream(output, true, StandardCharsets.UTF_8));

  @Test
  void noJobPrintsUsageAndExits2() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(false), client, new String[0]));
    assertTrue(output().startsWith("usage: tide [--jar JAR]"), output());
    assertNull(client.getLastApplicationId());
  }

  @Test
  void onlyGenericOptionsIsStillAUsageError() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(false), client,
        new String[] {"-D", "tide.am.cores=2"}));
    assertTrue(output().contains("usage:"), output());
  }

  @Test
  void badSettingExits2NamingKeyAndValue() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(false), client,
        new String[] {"-D", "tide.executor.memory=huge", "wordcount", "/in"}));
    assertTrue(output().contains("tide.executor.memory = 'huge'"), output());
    assertNull(client.getLastApplicationId());
  }

  @Test
  void settingsAfterTheJobAreAppliedNotPassedOn() {
    Configuration conf = new Configuration(false);
    assertEquals(java.util.List.of("/in", "-x", "/out"), TideClient.takeTrailingSettings(
        java.util.List.of("/in", "-D", "tide.executor.cores=2", "-x", "-Dtide.queue=batch",
            "/out"), conf));
    assertEquals("2", conf.get("tide.executor.cores"));
    assertEquals("batch", conf.get("tide.queue"));
  }

  @Test
  void badSettingAfterTheJobExits2() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(false), client,
        new String[] {"wordcount", "/in", "-D", "tide.am.cores=none"}));
    assertTrue(output().contains("tide.am.cores = 'none'"), output());
  }

  @Test
  void helpPrintsUsageAndExits0() throws Exception {
    for (String help : new String[] {"-h", "--help", "help"}) {
      output.reset();
      assertEquals(0, run(help), help);
      assertTrue(output().startsWith("usage: tide"), output());
    }
    output.reset();
    assertEquals(0, run("-D", "tide.am.cores=2", "--help"));
    assertTrue(output().startsWith("usage: tide"), output());
  }

  @Test
  void unknownJobExits2() throws Exception {
    assertEquals(2, run("wordcont", "/in", "/out"));
    assertTrue(output().contains("unknown job 'wordcont': not a built-in job"), output());
    assertNull(client.getLastApplicationId());
  }

  @Test
  void classThatIsNotATideJobExits2() throws Exception {
    assertEquals(2, run("java.lang.StringBuilder"));
    assertTrue(output().contains("java.lang.StringBuilder does not implement"
        + " dev.tide.driver.job.TideJob"), output());
  }

  @Test
  void builtInJobsWithBadArgumentsExit2() throws Exception {
    assertEquals(2, run("wordcount", "/in"));
    assertTrue(output().contains("usage: wordcount <input path> <output path>; got 1"),
        output());
    output.reset();
    assertEquals(2, run("sleep", "-m", "many"));
    assertTrue(output().contains("sleep: -m expects a number, got 'many'"), output());
  }

  @Test
  void missingJarOrLibjarExits2() throws Exception {
    assertEquals(2, run("--jar", "target/no-such.jar", "my.Job"));
    assertTrue(output().contains("--jar target/no-such.jar: no such file"), output());
    output.reset();
    assertEquals(2, run("-libjars", "target/no-such-lib.jar", "wordcount", "/in", "/out"));
    assertTrue(output().contains("no-such-lib.jar does not exist"), output());
    output.reset();
    assertEquals(2, run("--jar", "pom.xml", "my.Job"));
    assertTrue(output().contains("--jar pom.xml: not a readable jar"), output());
    output.reset();
    assertEquals(2, run("--jar", "target", "my.Job"));
    assertTrue(output().contains("tide: --jar target: a directory, not a jar"), output());
  }

  /**
   * A ResourceManager whose web address was configured with port 0 (MiniYARNCluster, the demo)
   * reports tracking URLs on port 0; the client prints the port its web server took.
   */
  @Test
  void aTrackingUrlOnPort0IsPrintedWithTheWebServersPort() {
    Configuration conf = new Configuration(false);
    conf.set("yarn.resourcemanager.webapp.address", "localhost:41234");
    assertEquals("http://localhost:41234/proxy/application_1_0001/", TideClient.trackingUrl(
        "http://localhost:0/proxy/application_1_0001/", conf));
    assertEquals("http://rm.example.com:8088/proxy/application_1_0001/", TideClient.trackingUrl(
        "http://rm.example.com:8088/proxy/application_1_0001/", conf));
    assertEquals("N/A", TideClient.trackingUrl("N/A", conf));
  }

  /** A name with a line break is printed as one line, escaped as the rest of the output. */
  @Test
  void theSubmittedLineEscapesTheNameAndQueue() {
    assertEquals("Submitted application_1_0001 (nightly\\nrun\\u001b[31m) to queue a\\tb",
        TideClient.submittedLine(org.apache.hadoop.yarn.api.records.ApplicationId.newInstance(1,
            1), "nightly\nrun\u001b[31m", "a\tb"));
  }

  @Test
  void unknownClientOptionExits2() throws Exception {
    assertEquals(2, run("--jarr", "x.jar", "my.Job"));
    assertTrue(output().contains("unknown option '--jarr'"), output());
  }

  @Test
  void twoResourcesWithOneNameExit2() throws Exception {
    assertEquals(2, run("-files", "pom.xml,../pom.xml", "wordcount", "/in", "/out"));
    assertTrue(output().contains("two resources would be named 'pom.xml'"), output());
    output.reset();
    assertEquals(2, run("-files", "pom.xml#tide-job.xml", "wordcount", "/in", "/out"));
    assertTrue(output().contains("two resources would be named 'tide-job.xml'"), output());
  }

  private int run(String... args) throws Exception {
    client.setConf(new Configuration(false));
    return client.run(args);
  }

  private String output() {
    return output.toString(StandardCharsets.UTF_8);
  }
}
