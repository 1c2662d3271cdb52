package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.StreamingSettings.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamingSettingsTest {
  private static final String SDA = "tide.streaming.dynamicAllocation.";

  private static Configuration conf(String... keyValues) {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }

  /** The message a user sees for a bad setting names the key and the value. */
  private static void rejected(String expectedKey, String expectedValue, String... keyValues) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StreamingSettings.from(conf(keyValues)));
    assertTrue(e.getMessage().contains(expectedKey), e.getMessage());
    assertTrue(e.getMessage().contains(expectedValue), e.getMessage());
  }

  @Test
  void defaultsAreThoseOfTheDesign() {
    StreamingSettings s = StreamingSettings.from(conf());
    assertFalse(s.enabled());
    assertEquals(Policy.PROPORTIONAL, s.policy());
    assertEquals(2_000, s.intervalMillis());
    assertEquals(0, s.minExecutors());
    assertEquals(50, s.maxExecutors());
    assertEquals(1, s.initialExecutors());
    assertFalse(s.debug());
    assertEquals(5, s.releaseRounds());
    assertEquals(1, s.rememberBatchSize());
    assertEquals(10, s.delayRounds());
    assertEquals(0.2, s.reserveRate());
  }

  @Test
  void defaultsForTestsAndTheSimulatorMatchTheKeys() {
    StreamingSettings keys = StreamingSettings.from(conf(SDA + "enabled", "true"));
    assertEquals(keys, StreamingSettings.defaults(Policy.PROPORTIONAL, 2_000, 0, 50));
  }

  @Test
  void explicitValuesAreRead() {
    StreamingSettings s = StreamingSettings.from(conf(
        SDA + "enabled", "true", SDA + "policy", " Seed ", "tide.streaming.batchInterval", "5s",
        SDA + "minExecutors", "2", SDA + "maxExecutors", "8", SDA + "releaseRounds", "3",
        SDA + "rememberBatchSize", "4", SDA + "delay.rounds", "0", SDA + "reserveRate", "0.5",
        SDA + "proportional.catchUpTime", "2m", "tide.executor.cores", "4"));
    assertEquals(Policy.SEED, s.policy());
    assertEquals(5_000, s.intervalMillis());
    assertEquals(2, s.initialExecutors());
    assertEquals(3, s.releaseRounds());
    assertEquals(4, s.rememberBatchSize());
    assertEquals(0, s.delayRounds());
    assertEquals(0.5, s.reserveRate());
    assertEquals(120_000, s.catchUpMillis());
    assertEquals(4, s.tasksPerExecutor());
  }

  @Test
  void badValuesAreRejectedWithTheKeyAndTheValue() {
    rejected("tide.streaming.batchInterval", "0", "tide.streaming.batchInterval", "0s");
    rejected(SDA + "reserveRate", "1", SDA + "reserveRate", "1");
    rejected(SDA + "reserveRate", "-0.1", SDA + "reserveRate", "-0.1");
    rejected(SDA + "releaseRounds", "0", SDA + "releaseRounds", "0");
    rejected(SDA + "rememberBatchSize", "0", SDA + "rememberBatchSize", "0");
    rejected(SDA + "minExecutors", "9", SDA + "minExecutors", "9", SDA + "maxExecutors", "4");
    rejected(SDA + "initialExecutors", "7", SDA + "initialExecutors", "7",
        SDA + "maxExecutors", "4");
    rejected(SDA + "policy", "greedy", SDA + "policy", "greedy");
    rejected(SDA + "proportional.targetUtilization", "1.5",
        SDA + "proportional.targetUtilization", "1.5");
    rejected(SDA + "proportional.maxScaleDownStep", "0", SDA + "proportional.maxScaleDownStep",
        "0");
  }

  /** Settings built in code (the simulator, tests) are checked as strictly as the keys. */
  @Test
  void theRecordNamesTheKeyOfABadValue() {
    StreamingSettings ok = StreamingSettings.defaults(Policy.SEED, 2_000, 0, 10);
    assertInvalid("tide.streaming.batchInterval", () -> new StreamingSettings(true, Policy.SEED,
        0, 0, 10, 1, 1, false, 5, 1, 10, 0.2, 0.9, 60_000, 0.2, 3, 0.5));
    assertInvalid(SDA + "reserveRate", () -> new StreamingSettings(true, Policy.SEED, 2_000, 0,
        10, 1, 1, false, 5, 1, 10, 1.0, 0.9, 60_000, 0.2, 3, 0.5));
    assertInvalid(SDA + "releaseRounds", () -> new StreamingSettings(true, Policy.SEED, 2_000,
        0, 10, 1, 1, false, 0, 1, 10, 0.2, 0.9, 60_000, 0.2, 3, 0.5));
    assertInvalid(SDA + "rememberBatchSize", () -> new StreamingSettings(true, Policy.SEED,
        2_000, 0, 10, 1, 1, false, 5, 0, 10, 0.2, 0.9, 60_000, 0.2, 3, 0.5));
    assertInvalid(SDA + "minExecutors", () -> new StreamingSettings(true, Policy.SEED, 2_000,
        11, 10, 10, 1, false, 5, 1, 10, 0.2, 0.9, 60_000, 0.2, 3, 0.5));
    assertInvalid(SDA + "proportional.scaleDownBatches", () -> new StreamingSettings(true,
        Policy.PROPORTIONAL, 2_000, 0, 10, 1, 1, false, 5, 1, 10, 0.2, 0.9, 60_000, 0.2, 0,
        0.5));
    assertInvalid(SDA + "proportional.scaleDownMargin", () -> new StreamingSettings(true,
        Policy.PROPORTIONAL, 2_000, 0, 10, 1, 1, false, 5, 1, 10, 0.2, 0.9, 60_000, 1.0, 3,
        0.5));
    assertTrue(ok.describe().contains("reserveRate 0.2"), ok.describe());
  }

  private static void assertInvalid(String key, Runnable build) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
    assertTrue(e.getMessage().contains(key), e.getMessage());
  }

  @Test
  void batchAndStreamingAllocationCannotBothBeEnabledExplicitly() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StreamingSettings.checkNotBothEnabled(conf("tide.dynamicAllocation.enabled",
            "true", SDA + "enabled", "true")));
    assertTrue(e.getMessage().contains("tide.dynamicAllocation.enabled"), e.getMessage());
    assertTrue(e.getMessage().contains(SDA + "enabled"), e.getMessage());
    // the batch policy's default (on) does not conflict; neither does either one alone
    assertDoesNotThrow(() -> StreamingSettings.checkNotBothEnabled(conf(SDA + "enabled",
        "true")));
    assertDoesNotThrow(() -> StreamingSettings.checkNotBothEnabled(conf(
        "tide.dynamicAllocation.enabled", "true")));
    assertDoesNotThrow(() -> StreamingSettings.checkNotBothEnabled(conf(
        "tide.dynamicAllocation.enabled", "false", SDA + "enabled", "true")));
  }

  /**
   * The tarball's conf/tide-site.xml (on bin/tide's classpath) writes every default out,
   * tide.dynamicAllocation.enabled=true too: that is no request for the batch policy, and
   * README's streaming example must not be refused for it.
   */
  @Test
  void theBatchDefaultWrittenInASiteFileDoesNotConflict(@TempDir Path dir) throws Exception {
    Path site = dir.resolve("tide-site.xml");
    Files.writeString(site, "<configuration><property><name>tide.dynamicAllocation.enabled"
        + "</name><value>true</value></property></configuration>");
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
    conf.set(SDA + "enabled", "true");
    assertDoesNotThrow(() -> StreamingSettings.checkNotBothEnabled(conf));
    conf.set("tide.dynamicAllocation.enabled", "true"); // -D on the command line
    assertThrows(IllegalArgumentException.class,
        () -> StreamingSettings.checkNotBothEnabled(conf));
  }
}
