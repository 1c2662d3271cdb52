package dev.tide.shuffle.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wait before a retry after BUSY: honours the server, grows, is capped, is jittered. */
class ShuffleClientBackoffTest {
  @Test
  void backoffHonoursRetryAfterGrowsAndIsCapped() {
    ShuffleClientConfig config =
        ShuffleClientConfig.DEFAULTS.withBusyRetries(5, Duration.ofSeconds(2));
    try (ShuffleClient client = new ShuffleClient("application_1_1",
        "s".getBytes(StandardCharsets.UTF_8), config)) {
      for (int i = 0; i < 50; i++) {
        assertBetween(100, 120, client.busyBackoffMillis(0, 0));
        assertBetween(400, 480, client.busyBackoffMillis(2, 0));
        assertBetween(750, 900, client.busyBackoffMillis(0, 750));     // the server asked more
        assertBetween(2000, 2400, client.busyBackoffMillis(30, 0));    // capped, with jitter
        assertBetween(2000, 2400, client.busyBackoffMillis(0, 60_000)); // cap beats the server
      }
    }
  }

  @Test
  void connectBackoffStartsAtTheConfiguredWaitDoublesAndIsCapped() {
    ShuffleClientConfig config = ShuffleClientConfig.DEFAULTS
        .withBusyRetries(5, Duration.ofSeconds(1))
        .withConnectRetries(3, Duration.ofMillis(300));
    try (ShuffleClient client = new ShuffleClient("application_1_1",
        "s".getBytes(StandardCharsets.UTF_8), config)) {
      for (int i = 0; i < 50; i++) {
        assertBetween(300, 360, client.connectBackoffMillis(0));
        assertBetween(600, 720, client.connectBackoffMillis(1));
        assertBetween(1000, 1200, client.connectBackoffMillis(2));  // capped, with jitter
        assertBetween(1000, 1200, client.connectBackoffMillis(40));
      }
    }
  }

  private static void assertBetween(long low, long high, long actual) {
    assertTrue(actual >= low && actual <= high, actual + " not in [" + low + ", " + high + "]");
  }
}
