package dev.tide.driver.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.executor.ExecutorOptions;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The job side's shuffle settings are {@code tide.executor.shuffle.*}, apart from the
 * NodeManager's {@code tide.shuffle.*} (the service's, in yarn-site.xml); their old
 * {@code tide.shuffle.*} names still work, and the new name wins where both are set.
 */
class ShuffleKeysTest {
  @Test
  void oldNamesStillSetTheValue() {
    Configuration conf = new Configuration(false);
    conf.set("tide.shuffle.maxBytesInFlight", "16m");
    conf.set("tide.shuffle.connectRetries", "14");
    conf.set("tide.shuffle.sort.buffer", "64m");
    conf.set("tide.shuffle.checksum.enabled", "false");

    assertEquals(16L << 20, ExecutorOptions.MAX_BYTES_IN_FLIGHT.get(conf));
    assertEquals(14, ExecutorOptions.SHUFFLE_CONNECT_RETRIES.get(conf));
    assertEquals(64L << 20, ExecutorOptions.SORT_BUFFER_BYTES.get(conf));
    assertFalse(ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED.get(conf));
  }

  @Test
  void theNewNameWinsOverTheOld() {
    Configuration conf = new Configuration(false);
    conf.set("tide.shuffle.maxBytesInFlight", "16m");
    conf.set("tide.executor.shuffle.maxBytesInFlight", "32m");
    conf.set("tide.shuffle.connectRetries", "14");
    conf.set("tide.executor.shuffle.connectRetries", "6");
    conf.set("tide.shuffle.checksum.enabled", "false");
    conf.set("tide.executor.shuffle.checksum.enabled", "true");

    assertEquals(32L << 20, ExecutorOptions.MAX_BYTES_IN_FLIGHT.get(conf));
    assertEquals(6, ExecutorOptions.SHUFFLE_CONNECT_RETRIES.get(conf));
    assertTrue(ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED.get(conf));
  }

  @Test
  void everyJobSideShuffleKeyIsUnderTheExecutorsPrefixWithItsOldName() {
    Map<String, List<String>> expected = Map.of(
        "tide.executor.shuffle.sort.buffer", List.of("tide.shuffle.sort.buffer"),
        "tide.executor.shuffle.checksum.enabled", List.of("tide.shuffle.checksum.enabled"),
        "tide.executor.shuffle.maxBytesInFlight", List.of("tide.shuffle.maxBytesInFlight"),
        "tide.executor.shuffle.connectRetries", List.of("tide.shuffle.connectRetries"));
    for (var option : List.of(ExecutorOptions.SORT_BUFFER_BYTES, ExecutorOptions.SHUFFLE_CHECKSUM_ENABLED,
        ExecutorOptions.MAX_BYTES_IN_FLIGHT, ExecutorOptions.SHUFFLE_CONNECT_RETRIES)) {
      assertEquals(expected.get(option.key()), option.deprecatedKeys(), option.key());
    }
    for (var option : TideOptions.all()) {
      assertFalse(option.key().startsWith("tide.shuffle."),
          option.key() + ": tide.shuffle.* is the NodeManager's shuffle service");
    }
  }
}
