package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class AmOptionsTest {
  private final Configuration conf = new Configuration(false);

  @Test
  void defaults() throws IOException {
    AmOptions.validate(conf);
    assertEquals(512, AmOptions.AM_MEMORY_MB.get(conf));
    assertEquals(1, AmOptions.AM_CORES.get(conf));
    assertEquals("default", AmOptions.QUEUE.get(conf));
    assertEquals("tide wordcount", AmOptions.appName(conf, "wordcount"));
    assertEquals(Optional.empty(), AmOptions.containerClasspath(conf));
    assertEquals(Duration.ofSeconds(1), AmOptions.CLIENT_POLL_INTERVAL.get(conf));
    FileSystem fs = FileSystem.getLocal(conf);
    assertEquals(fs.makeQualified(new Path(fs.getHomeDirectory(), ".tide-staging")),
        AmOptions.stagingDir(conf, fs));
  }

  @Test
  void settingsAreRead() throws IOException {
    conf.set("tide.am.memory", "1g");
    conf.set("tide.am.cores", "2");
    conf.set("tide.app.name", "nightly");
    conf.set("tide.yarn.container.classpath", "/a:/b");
    conf.set("tide.yarn.stagingDir", "/tmp/stage");
    conf.set("tide.client.pollInterval", "250ms");
    AmOptions.validate(conf);
    assertEquals(1024, AmOptions.AM_MEMORY_MB.get(conf));
    assertEquals(2, AmOptions.AM_CORES.get(conf));
    assertEquals("nightly", AmOptions.appName(conf, "wordcount"));
    assertEquals(Optional.of("/a:/b"), AmOptions.containerClasspath(conf));
    assertEquals(Duration.ofMillis(250), AmOptions.CLIENT_POLL_INTERVAL.get(conf));
    FileSystem fs = FileSystem.getLocal(conf);
    assertEquals(fs.makeQualified(new Path("/tmp/stage")), AmOptions.stagingDir(conf, fs));
  }

  @Test
  void badMemoryNamesKeyAndValue() {
    assertMessage("tide.am.memory", "lots", "tide.am.memory", "'lots'");
    assertMessage("tide.am.memory", "8m", "tide.am.memory", "'8m'", "at least 32m");
  }

  @Test
  void badCoresNamesKeyAndValue() {
    assertMessage("tide.am.cores", "0", "tide.am.cores", "'0'", "at least 1");
    assertMessage("tide.am.cores", "two", "tide.am.cores", "'two'");
  }

  @Test
  void badPollIntervalNamesKeyAndValue() {
    assertMessage("tide.client.pollInterval", "soon", "tide.client.pollInterval", "'soon'");
    assertMessage("tide.client.pollInterval", "0s", "tide.client.pollInterval", "'0s'",
        "positive");
  }

  @Test
  void emptyQueueIsRejected() {
    assertMessage("tide.queue", " ", "tide.queue", "must not be empty");
  }

  @Test
  void badPlacementAndAllocationSettingsAreRefusedBeforeSubmission() {
    assertMessage("tide.yarn.placement", "scatter", "tide.yarn.placement", "'scatter'",
        "one of locality, spread, pack");
    conf.set("tide.yarn.placement", "Spread");
    assertEquals(AmOptions.Placement.SPREAD, AmOptions.placement(conf));
    conf.unset("tide.yarn.placement");
    assertMessage("tide.dynamicAllocation.rampUp", "linear", "tide.dynamicAllocation.rampUp",
        "'linear'");
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    assertMessage("tide.dynamicAllocation.minExecutors", "5",
        "tide.dynamicAllocation.minExecutors (5) is above tide.dynamicAllocation.maxExecutors");
  }

  @Test
  void everyBadKeyIsReportedAtOnce() {
    conf.set("tide.am.cores", "0");
    assertMessage("tide.am.memory", "lots", "tide.am.memory = 'lots'", "tide.am.cores = '0'");
  }

  private void assertMessage(String key, String value, String... expected) {
    conf.set(key, value);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AmOptions.validate(conf));
    for (String part : expected) {
      assertTrue(e.getMessage().contains(part), () -> "'" + part + "' not in: " + e.getMessage());
    }
    conf.unset(key);
  }
}
