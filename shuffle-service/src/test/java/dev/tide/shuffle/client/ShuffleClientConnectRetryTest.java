package dev.tide.shuffle.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.server.ShuffleServer;
import dev.tide.shuffle.server.ShuffleServerConfig;
import dev.tide.shuffle.testing.MapOutputs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connect failures are retried with backoff on a new connection, and after the last attempt the
 * fetch fails with CONNECT naming the attempts and host:port (the driver then reruns the maps).
 * The client's waits go through a recording {@link ShuffleClient.Pause} that does not sleep:
 * the tests check the attempts and the waits the client asked for, never a guessed duration.
 */
class ShuffleClientConnectRetryTest {
  private static final String USER = "alice";
  private static final String APP = "application_1700000000000_0001";
  private static final byte[] SECRET = "secret-one".getBytes(StandardCharsets.UTF_8);
  private static final List<BlockId> BLOCK = List.of(BlockId.of(0, 0, 1));

  @TempDir Path nmDir;
  private ShuffleServer server;
  private final List<Long> waits = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private void startServer(int port) {
    try {
      server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(port)
          .localDirs(List.of(nmDir)).build());
      server.start();
      server.registerApplication(APP, USER, SECRET);
      MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nmDir, USER, APP)), 0, 0,
          new int[] {3, 40});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void serverThatComesUpAfterRefusedAttemptsIsFetchedFrom() throws Exception {
    int port = unusedPort();
    ShuffleClientConfig config = ShuffleClientConfig.DEFAULTS
        .withConnectRetries(10, Duration.ofMillis(20));
    ShuffleClient.Pause startOnSecondWait = millis -> {
      waits.add(millis);
      if (waits.size() == 2) {
        startServer(port); // down for the first two attempts, up before the third
      }
      // the backoff is recorded, not slept: what the test checks is the attempts and waits
    };
    try (ShuffleClient client = new ShuffleClient(APP, SECRET, config, startOnSecondWait)) {
      List<byte[]> fetched = client.fetch("127.0.0.1", port, BLOCK);
      assertArrayEquals(MapOutputs.expected(0, 0, new int[] {3, 40}, 1, 2), fetched.get(0));
    }
    assertEquals(2, waits.size(), "fetched on the third attempt: " + waits);
    assertBetween(20, 24, waits.get(0));
    assertBetween(40, 48, waits.get(1));
  }

  @Test
  void portNobodyListensOnFailsWithTheAttemptCount() throws Exception {
    int port = unusedPort();
    ShuffleClientConfig config = ShuffleClientConfig.DEFAULTS
        .withConnectRetries(3, Duration.ofMillis(10));
    long start = System.nanoTime();
    try (ShuffleClient client = new ShuffleClient(APP, SECRET, config, this::recordWait)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", port, BLOCK));
      assertEquals(Reason.CONNECT, e.reason());
      assertEquals("127.0.0.1", e.host());
      assertEquals(port, e.port());
      assertEquals(BLOCK, e.blocks());
      assertTrue(e.getMessage().contains("at 127.0.0.1:" + port), e.getMessage());
      assertTrue(e.getMessage().contains("gave up after 4 attempts"), e.getMessage());
      assertTrue(e.detail().contains("cannot connect"), e.detail());
    }
    assertEquals(3, waits.size(), waits.toString());
    assertBetween(10, 12, waits.get(0));
    assertBetween(20, 24, waits.get(1));
    assertBetween(40, 48, waits.get(2));
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "gave up quickly");
  }

  @Test
  void defaultsGiveUpOnARefusingNodeWithinAFewSeconds() throws Exception {
    int port = unusedPort();
    long start = System.nanoTime();
    try (ShuffleClient client = new ShuffleClient(APP, SECRET, ShuffleClientConfig.DEFAULTS,
        this::recordWait)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", port, BLOCK));
      assertEquals(Reason.CONNECT, e.reason());
      assertTrue(e.getMessage().contains("gave up after "
          + (ShuffleClientConfig.DEFAULT_CONNECT_RETRIES + 1) + " attempts"), e.getMessage());
    }
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(ShuffleClientConfig.DEFAULT_CONNECT_RETRIES, waits.size());
    long waited = waits.stream().mapToLong(Long::longValue).sum();
    assertBetween(1400, 1680, waited); // 200 + 400 + 800 ms, plus at most 20 % jitter
    assertTrue(elapsedMillis < 5000, "gave up after " + elapsedMillis + " ms");
  }

  @Test
  void noRetriesFailsAtTheFirstRefusal() throws Exception {
    int port = unusedPort();
    try (ShuffleClient client = new ShuffleClient(APP, SECRET,
        ShuffleClientConfig.DEFAULTS.withConnectRetries(0, Duration.ofMillis(10)),
        this::recordWait)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", port, BLOCK));
      assertEquals(Reason.CONNECT, e.reason());
      assertTrue(e.getMessage().contains("gave up after 1 attempt "), e.getMessage());
    }
    assertTrue(waits.isEmpty(), waits.toString());
  }

  @Test
  void retriesAreValidated() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShuffleClientConfig.DEFAULTS.withConnectRetries(-1, Duration.ofMillis(10)));
    assertTrue(e.getMessage().contains("connectRetries: -1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ShuffleClientConfig.DEFAULTS.withConnectRetries(1, Duration.ZERO));
    assertTrue(e.getMessage().contains("connectBackoff"), e.getMessage());
  }

  /** The client's pause between attempts: recorded, not slept. */
  private void recordWait(long millis) {
    waits.add(millis);
  }

  private static void assertBetween(long low, long high, long actual) {
    assertTrue(actual >= low && actual <= high, actual + " not in [" + low + ", " + high + "]");
  }
}
