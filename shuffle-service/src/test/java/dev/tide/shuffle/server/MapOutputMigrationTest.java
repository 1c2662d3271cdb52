package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import dev.tide.shuffle.testing.MapOutputs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real shuffle servers on loopback: map outputs written under the first are copied to the
 * second at the driver's request (MIGRATE_REQUEST, then PUSH_OPEN/PUSH_DATA between the
 * services), and fetched from the second.
 */
class MapOutputMigrationTest {
  static final String USER = "alice";
  static final String APP = "application_1700000000000_0001";
  static final String STRANGER = "application_1700000000000_0009";
  static final byte[] SECRET = "secret-one".getBytes(StandardCharsets.UTF_8);
  static final byte[] STRANGER_SECRET = "secret-nine".getBytes(StandardCharsets.UTF_8);
  /** The source's migration rate: 2 MiB/s. */
  static final long RATE = 2L << 20;

  @TempDir Path nmSource;
  @TempDir Path nmTarget;
  ShuffleServer source;
  ShuffleServer target;
  ShuffleClient driver;
  Path sourceAppDir;
  Path targetAppDir;

  @BeforeEach
  void start() throws IOException {
    source = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nmSource)).migrationMaxBytesPerSec(RATE).build());
    target = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nmTarget)).build());
    source.start();
    target.start();
    source.registerApplication(APP, USER, SECRET);
    target.registerApplication(APP, USER, SECRET);
    source.registerApplication(STRANGER, USER, STRANGER_SECRET);
    sourceAppDir = ShuffleLayout.appLocalDir(nmSource, USER, APP);
    // YARN made the application's dir on the target when it ran a container there.
    targetAppDir = Files.createDirectories(ShuffleLayout.appLocalDir(nmTarget, USER, APP));
    driver = new ShuffleClient(APP, SECRET);
  }

  @AfterEach
  void stop() {
    driver.close();
    source.close();
    target.close();
  }

  private MigrateReply migrate(ShuffleClient client, List<MapOutputId> maps)
      throws ShuffleFetchException {
    return client.migrate("127.0.0.1", source.port(), "127.0.0.1", target.port(), 60_000, maps);
  }

  @Test
  void copiedOutputsAreServedByteExactByTheTarget() throws Exception {
    int[][] lengths = {{10, 0, 300, 7}, {0, 0, 0, 0}, {5000, 1, 0, 65536}};
    for (int m = 0; m < lengths.length; m++) {
      assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 3, m, lengths[m]));
    }
    List<MapOutputId> maps = List.of(new MapOutputId(3, 0), new MapOutputId(3, 1),
        new MapOutputId(3, 2));

    MigrateReply reply = migrate(driver, maps);

    assertEquals(maps, reply.copied(), reply.failures());
    assertEquals("", reply.failures());
    long total = 10 + 300 + 7 + 5000 + 1 + 65536;
    assertEquals(total, reply.bytesCopied());
    assertEquals(3, target.stats().pushesReceived());
    assertEquals(total, target.stats().pushedBytesReceived());
    assertEquals(3, source.stats().migratedOut());
    for (int m = 0; m < lengths.length; m++) {
      List<BlockId> blocks = List.of(new BlockId(3, m, 0, 4), BlockId.of(3, m, 2));
      List<byte[]> got = driver.fetch("127.0.0.1", target.port(), blocks);
      assertArrayEquals(MapOutputs.expected(3, m, lengths[m], 0, 4), got.get(0));
      assertArrayEquals(MapOutputs.expected(3, m, lengths[m], 2, 3), got.get(1));
    }
    // The target's own checks pass on what it serves (the index it wrote carries the CRC32Cs).
    assertFalse(driver.verify("127.0.0.1", target.port(), BlockId.of(3, 2, 3)).damagedOnDisk());
    try (Stream<Path> files = Files.list(ShuffleLayout.shuffleDir(targetAppDir, 3))) {
      assertTrue(files.noneMatch(f -> f.getFileName().toString().contains(".tmp-")),
          "no temporary file is left");
    }
  }

  @Test
  void aCopyDamagedOnItsWayIsRejectedAndNeverVisible() throws Exception {
    int[] lengths = {4000, 50, 9000};
    assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 1, 0, lengths));
    assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 1, 1, lengths));
    // A byte of map 0 flips on the source's disk after its map task wrote it: its copy no
    // longer matches the CRC32C the map task put in the index.
    flipByte(ShuffleLayout.dataFile(sourceAppDir, 1, 0), 4010);

    MigrateReply reply = migrate(driver, List.of(new MapOutputId(1, 0), new MapOutputId(1, 1)));

    assertEquals(List.of(new MapOutputId(1, 1)), reply.copied());
    assertTrue(reply.failures().startsWith("1/0: ") && reply.failures().contains("CORRUPT"),
        reply.failures());
    assertEquals(1, target.stats().pushesRefused());
    ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
        () -> driver.fetch("127.0.0.1", target.port(), List.of(BlockId.of(1, 0, 0))));
    assertEquals(Reason.NOT_FOUND, e.reason(), e.getMessage());
    assertFalse(Files.exists(ShuffleLayout.indexFile(targetAppDir, 1, 0)));
    assertArrayEquals(MapOutputs.expected(1, 1, lengths, 0, 3), driver.fetch("127.0.0.1",
        target.port(), List.of(new BlockId(1, 1, 0, 3))).get(0));
  }

  @Test
  void aTargetThatDoesNotKnowTheApplicationRefusesItsOutputs() throws Exception {
    Path strangerDir = ShuffleLayout.appLocalDir(nmSource, USER, STRANGER);
    assertTrue(MapOutputs.writeChecksummed(List.of(strangerDir), 0, 0, new int[] {100}));
    assertTrue(MapOutputs.writeChecksummed(List.of(strangerDir), 0, 1, new int[] {100}));
    try (ShuffleClient stranger = new ShuffleClient(STRANGER, STRANGER_SECRET)) {
      MigrateReply reply = migrate(stranger, List.of(new MapOutputId(0, 0),
          new MapOutputId(0, 1)));

      assertEquals(List.of(), reply.copied());
      assertTrue(reply.failures().startsWith("0/0: the target refused or failed: AUTH"),
          reply.failures());
      assertTrue(reply.failures().contains("0/1: not tried, the target refuses the"
          + " application (AUTH)"), reply.failures());
    }
    assertEquals(1, target.stats().authFailures(), "one handshake refused, not one per output");
    assertEquals(0, target.stats().pushesReceived());
    assertFalse(Files.exists(ShuffleLayout.appLocalDir(nmTarget, USER, STRANGER)));
    // The target serves its own applications as before.
    assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 0, 0, new int[] {7}));
    assertEquals(List.of(new MapOutputId(0, 0)),
        migrate(driver, List.of(new MapOutputId(0, 0))).copied());
  }

  @Test
  void aNodeWhereTheApplicationNeverRanRefusesAndMissingOutputsAreNamed() throws Exception {
    Files.delete(targetAppDir);
    assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 0, 0, new int[] {100}));

    MigrateReply reply = migrate(driver, List.of(new MapOutputId(0, 5), new MapOutputId(0, 0),
        new MapOutputId(0, 6)));

    assertEquals(List.of(), reply.copied());
    assertTrue(reply.failures().contains("0/0: ") && reply.failures().contains("no local dir"),
        reply.failures());
    assertTrue(reply.failures().startsWith("0/5: no committed map output"), reply.failures());
    assertTrue(reply.failures().endsWith("0/6: not tried, the target refuses the application"
        + " (AUTH)"), reply.failures());
    assertFalse(Files.exists(targetAppDir), "the service never creates an application's dir");
  }

  @Test
  void copiesKeepToTheConfiguredRate() throws Exception {
    int[] lengths = new int[16];
    java.util.Arrays.fill(lengths, 48 << 10); // 768 KiB per map, 3 pieces of 256 KiB
    for (int m = 0; m < 2; m++) {
      assertTrue(MapOutputs.writeChecksummed(List.of(sourceAppDir), 2, m, lengths));
    }
    long started = System.nanoTime();
    MigrateReply reply = migrate(driver, List.of(new MapOutputId(2, 0), new MapOutputId(2, 1)));
    long elapsedNanos = System.nanoTime() - started;

    assertEquals(2, reply.copied().size(), reply.failures());
    long bytes = source.stats().migratedOutBytes();
    assertEquals(2L * 16 * (48 << 10), bytes);
    // Paced: the last piece may only go once the bytes before it had their time at the rate,
    // so (bytes - one piece) / rate is a lower bound of the elapsed time (waits only add).
    long boundNanos = (bytes - MapOutputMigrator.MAX_PIECE_BYTES) * 1_000_000_000L / RATE;
    assertTrue(elapsedNanos >= boundNanos, elapsedNanos + " ns for " + bytes + " bytes");
    assertTrue(source.stats().migrationThrottledNanos() > 0, "the service counted its waits");
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0x40));
      ch.write(b.rewind(), position);
    }
  }
}
