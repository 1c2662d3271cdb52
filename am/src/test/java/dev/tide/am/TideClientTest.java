package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/** What the client does before it contacts YARN: usage and configuration errors exit 2. */
class TideClientTest {
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final TideClient client =
      new TideClient(new PrintStream(output, true, StandardCharsets.UTF_8));

  @Test
  void noJobPrintsUsageAndExits2() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(false), client, new String[0]));
    assertTrue(output().startsWith("usage: yarn jar tide-app.jar <job>"), output());
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

  private String output() {
    return output.toString(StandardCharsets.UTF_8);
  }
}
