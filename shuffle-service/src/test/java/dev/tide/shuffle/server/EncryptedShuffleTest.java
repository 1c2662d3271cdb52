package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.testing.ByteRelay;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.testing.Await;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real shuffle server and the real client through a TCP relay that keeps every byte: with
 * {@code tide.network.crypto.enabled} a record of the map output (a distinctive key) is not in
 * the bytes on the wire and the fetch returns the exact blocks (a large one sent from a file
 * region, small ones copied); without it the same key is on the wire (so the check can fail).
 * A server that requires encryption refuses a plain client by name; a byte flipped on the wire
 * fails that client's fetch with one clear error, and the server goes on serving others.
 */
class EncryptedShuffleTest {
  private static final String APP = ShuffleServerTest.APP;
  private static final byte[] SECRET = ShuffleServerTest.SECRET;
  private static final String KEY = "zebra-crossing-key-7431";
  private static final ShuffleClientConfig ENCRYPTED =
      ShuffleClientConfig.DEFAULTS.withEncryption(true).withConnectRetries(0, Duration.ofMillis(10));

  @TempDir Path nm;
  private byte[][] partitions;
  private List<BlockId> blocks;

  /** Map 0 of shuffle 0: a 300 KB partition (zero-copy) and two short ones (copied). */
  @BeforeEach
  void writeMapOutput() throws Exception {
    Path appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
    partitions = new byte[][] {record(300_000, 1), record(2_000, 2), record(70, 3)};
    Path temp = MapOutputCommitter.tempDataFile(appDir, 0, 0, 1);
    long[] lengths = new long[partitions.length];
    try (var out = Files.newOutputStream(temp)) {
      for (int r = 0; r < partitions.length; r++) {
        out.write(partitions[r]);
        lengths[r] = partitions[r].length;
      }
    }
    assertTrue(MapOutputCommitter.commit(appDir, 0, 0, temp, lengths));
    // 0 and 2 are not adjacent, so the server does not merge them into one range: the large one
    // goes as a file region, the short one is copied into memory (below tide.shuffle.copyBelow)
    blocks = List.of(BlockId.of(0, 0, 0), BlockId.of(0, 0, 2));
  }

  /** Random bytes with the key written into them, as a record of a map output would be. */
  private static byte[] record(int length, int seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    byte[] key = KEY.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(key, 0, b, length / 2 - key.length / 2, key.length);
    return b;
  }

  private ShuffleServer server(boolean cryptoRequired) throws Exception {
    ShuffleServer server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1")
        .port(0).localDirs(List.of(nm)).cryptoRequired(cryptoRequired).build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    return server;
  }

  private void assertExact(List<byte[]> fetched) {
    assertEquals(blocks.size(), fetched.size());
    for (int i = 0; i < blocks.size(); i++) {
      int r = blocks.get(i).reduceStart();
      assertArrayEquals(partitions[r], fetched.get(i), "block " + r);
    }
  }

  @Test
  void encryptedFetchReturnsTheExactBlocksAndTheKeyIsNotOnTheWire() throws Exception {
    try (ShuffleServer server = server(false); ByteRelay relay = new ByteRelay(server.port());
        ShuffleClient client = new ShuffleClient(APP, SECRET, ENCRYPTED)) {
      assertExact(client.fetch("127.0.0.1", relay.port(), blocks));
      assertExact(client.fetch("127.0.0.1", relay.port(), blocks));
      assertFalse(relay.sawEitherWay(KEY), "the key is not in the relayed bytes");
      long blockBytes = 300_000 + 70;
      assertTrue(relay.toClient().length > 2 * blockBytes, "the blocks did pass the relay");
      Await.until(Duration.ofSeconds(5), "regions released", () -> server.stats().openFiles() == 0);
      assertEquals(2 * 300_000L, server.stats().zeroCopyBytes(),
          "the large block went through the file region path, read for records");
    }
  }

  @Test
  void plainFetchShowsTheKeyOnTheWire() throws Exception {
    try (ShuffleServer server = server(false); ByteRelay relay = new ByteRelay(server.port());
        ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      assertExact(client.fetch("127.0.0.1", relay.port(), blocks));
      Await.until(Duration.ofSeconds(5), "the relay to pass the reply on",
          () -> relay.sawEitherWay(KEY));
    }
  }

  @Test
  void aServerRequiringEncryptionRefusesPlainClientsByName() throws Exception {
    try (ShuffleServer server = server(true);
        ShuffleClient plain = new ShuffleClient(APP, SECRET,
            ShuffleClientConfig.DEFAULTS.withConnectRetries(0, Duration.ofMillis(10)));
        ShuffleClient encrypted = new ShuffleClient(APP, SECRET, ENCRYPTED)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> plain.fetch("127.0.0.1", server.port(), blocks));
      assertTrue(e.getMessage().contains("requires encrypted connections; set"
          + " tide.network.crypto.enabled=true"), e.getMessage());
      assertExact(encrypted.fetch("127.0.0.1", server.port(), blocks));
    }
  }

  @Test
  void aByteChangedOnTheWireFailsThatFetchAndTheServerServesOthers() throws Exception {
    try (ShuffleServer server = server(false); ByteRelay relay = new ByteRelay(server.port());
        ShuffleClient tampered = new ShuffleClient(APP, SECRET, ENCRYPTED);
        ShuffleClient other = new ShuffleClient(APP, SECRET, ENCRYPTED)) {
      relay.corruptToClientAt(20_000); // inside the first record of the reply
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> tampered.fetch("127.0.0.1", relay.port(), blocks));
      assertTrue(e.getMessage().contains("failed authentication"), e.getMessage());
      assertTrue(e.getMessage().contains("127.0.0.1:" + relay.port()), e.getMessage());
      assertExact(other.fetch("127.0.0.1", server.port(), blocks));
    }
  }

  @Test
  void plainAndEncryptedClientsShareAServerThatDoesNotRequireEncryption() throws Exception {
    try (ShuffleServer server = server(false);
        ShuffleClient plain = new ShuffleClient(APP, SECRET);
        ShuffleClient encrypted = new ShuffleClient(APP, SECRET, ENCRYPTED)) {
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      for (int i = 0; i < 3; i++) {
        assertExact(plain.fetch("127.0.0.1", server.port(), blocks));
        assertExact(encrypted.fetch("127.0.0.1", server.port(), blocks));
        seen.write(i);
      }
      assertEquals(3, seen.size());
    }
  }
}
