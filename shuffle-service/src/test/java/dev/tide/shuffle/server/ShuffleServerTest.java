package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.testing.MapOutputs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Full fetches through a real server and client on loopback, files written by the committer. */
class ShuffleServerTest {
  static final String USER = "alice";
  static final String APP = "application_1700000000000_0001";
  static final String OTHER_APP = "application_1700000000000_0002";
  static final byte[] SECRET = "secret-one".getBytes(StandardCharsets.UTF_8);
  static final byte[] OTHER_SECRET = "secret-two".getBytes(StandardCharsets.UTF_8);

  @TempDir Path nm1;
  @TempDir Path nm2;
  ShuffleServer server;
  List<Path> appDirs;

  @BeforeEach
  void start() throws IOException {
    server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm1, nm2)).build());
    server.start();
    server.registerApplication(APP, USER, SECRET);
    server.registerApplication(OTHER_APP, "bob", OTHER_SECRET);
    appDirs = List.of(ShuffleLayout.appLocalDir(nm1, USER, APP),
        ShuffleLayout.appLocalDir(nm2, USER, APP));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private List<byte[]> fetch(ShuffleClient client, List<BlockId> blocks) throws ShuffleFetchException {
    return client.fetch("127.0.0.1", server.port(), blocks);
  }

  @Test
  void fetchesSegmentsOfManyMapsInRequestOrder() throws Exception {
    int[][] lengths = {{10, 0, 300, 7}, {0, 0, 0, 0}, {1, 2, 3, 4}, {5000, 1, 0, 65536}};
    for (int m = 0; m < lengths.length; m++) {
      assertTrue(MapOutputs.write(appDirs, 2, m, lengths[m]));
    }
    // Outputs were spread over both NodeManager local dirs.
    assertTrue(Files.exists(appDirs.get(0).resolve("tide-shuffle/2")));
    assertTrue(Files.exists(appDirs.get(1).resolve("tide-shuffle/2")));

    List<BlockId> blocks = List.of(
        BlockId.of(2, 0, 2),                 // one partition
        new BlockId(2, 3, 0, 4),             // a whole map
        BlockId.of(2, 1, 3),                 // an empty segment
        BlockId.of(2, 2, 0), BlockId.of(2, 2, 1), new BlockId(2, 2, 2, 4), // adjacent: coalesced
        BlockId.of(2, 0, 1),                 // empty segment between non-empty ones
        BlockId.of(2, 0, 0), BlockId.of(2, 0, 3), // same map, not adjacent
        new BlockId(2, 3, 1, 3));            // range with an empty segment inside
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      List<byte[]> data = fetch(client, blocks);
      assertEquals(blocks.size(), data.size());
      for (int i = 0; i < blocks.size(); i++) {
        BlockId b = blocks.get(i);
        assertArrayEquals(MapOutputs.expected(b.shuffleId(), b.mapId(), lengths[b.mapId()],
            b.reduceStart(), b.reduceEnd()), data.get(i), "block " + b);
      }
      // The connection is reused for a second request.
      assertArrayEquals(MapOutputs.expected(2, 3, lengths[3], 3, 4),
          fetch(client, List.of(BlockId.of(2, 3, 3))).get(0));
      assertEquals(List.of(), fetch(client, List.of()));
    }
  }

  @Test
  void aBlockReaderGetsTheSameBytesAsTheyStreamIn() throws Exception {
    int[] lengths = {3 << 20, 0, 17, 70_000};
    MapOutputs.write(appDirs, 6, 0, lengths);
    MapOutputs.write(appDirs, 6, 1, lengths);
    List<BlockId> blocks = List.of(BlockId.of(6, 0, 0), BlockId.of(6, 1, 1), BlockId.of(6, 1, 2),
        new BlockId(6, 0, 2, 4), BlockId.of(6, 1, 0));
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      java.io.ByteArrayOutputStream[] got = new java.io.ByteArrayOutputStream[blocks.size()];
      List<String> calls = new java.util.ArrayList<>();
      client.fetch("127.0.0.1", server.port(), blocks, new dev.tide.shuffle.client.BlockReader() {
        @Override
        public void start(long[] blockLengths) {
          calls.add("start " + java.util.Arrays.toString(blockLengths));
          for (int i = 0; i < got.length; i++) {
            got[i] = new java.io.ByteArrayOutputStream();
          }
        }

        @Override
        public void read(int index, java.nio.ByteBuffer data) {
          byte[] piece = new byte[data.remaining()];
          data.get(piece);
          got[index].writeBytes(piece);
        }
      });
      assertEquals(List.of("start [3145728, 0, 17, 70017, 3145728]"), calls);
      List<byte[]> asArrays = fetch(client, blocks);
      for (int i = 0; i < blocks.size(); i++) {
        assertArrayEquals(asArrays.get(i), got[i].toByteArray(), "block " + blocks.get(i));
      }
    }
  }

  /**
   * A reader whose disk takes 5 s for its first write: that work runs on the thread that
   * called fetch, not the client's I/O thread; meanwhile the connection is not read beyond the
   * pause bound (without the pause all 24 MiB would be in memory), no read timeout (3 s, under
   * the pause, with room for a server starved of CPU: 1 s once lapsed at load 22) fires, and
   * every byte arrives in order.
   */
  @Test
  void aReadersBlockingWorkRunsOnTheFetchingThreadWhileTheConnectionWaits() throws Exception {
    int[] lengths = {24 << 20};
    MapOutputs.write(appDirs, 8, 0, lengths);
    List<BlockId> blocks = List.of(BlockId.of(8, 0, 0));
    try (ShuffleClient client = new ShuffleClient(APP, SECRET,
        ShuffleClientConfig.DEFAULTS.withReadTimeout(Duration.ofSeconds(3)))) {
      Thread fetching = Thread.currentThread();
      java.util.Set<Thread> workedOn = java.util.concurrent.ConcurrentHashMap.newKeySet();
      java.util.concurrent.atomic.AtomicLong handedOver = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
      java.util.concurrent.atomic.AtomicLong mostWaiting = new java.util.concurrent.atomic.AtomicLong();
      java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      client.fetch("127.0.0.1", server.port(), blocks, new dev.tide.shuffle.client.BlockReader() {
        private Offload offload;

        @Override
        public void attach(Offload offload) {
          this.offload = offload;
        }

        @Override
        public void read(int index, java.nio.ByteBuffer data) {
          byte[] piece = new byte[data.remaining()];
          data.get(piece);
          long waiting = handedOver.addAndGet(piece.length) - written.get();
          mostWaiting.accumulateAndGet(waiting, Math::max);
          offload.submit(piece.length, () -> {
            workedOn.add(Thread.currentThread());
            if (written.get() == 0) {
              long until = System.nanoTime() + 5_000_000_000L; // a slow disk
              while (System.nanoTime() < until) {
                java.util.concurrent.locks.LockSupport.parkNanos(until - System.nanoTime());
              }
            }
            got.writeBytes(piece);
            written.addAndGet(piece.length);
          });
        }
      });
      assertEquals(java.util.Set.of(fetching), workedOn);
      assertTrue(mostWaiting.get() <= ShuffleClient.OFFLOAD_PAUSE_BYTES + (2 << 20),
          "at most the pause bound (+ what was already read) waited: " + mostWaiting.get());
      assertArrayEquals(MapOutputs.expected(8, 0, lengths, 0, 1), got.toByteArray());
    }
  }

  @Test
  void aFailingBlockReaderFailsItsFetchAndTheConnectionServesTheNextOne() throws Exception {
    MapOutputs.write(appDirs, 7, 0, new int[] {1 << 20, 10});
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", server.port(), List.of(BlockId.of(7, 0, 0)),
              (index, data) -> {
                throw new IllegalStateException("reader gave up");
              }));
      assertEquals(Reason.PROTOCOL, e.reason());
      assertTrue(e.getMessage().contains("reader gave up"), e.getMessage());
      assertArrayEquals(MapOutputs.expected(7, 0, new int[] {1 << 20, 10}, 1, 2),
          fetch(client, List.of(BlockId.of(7, 0, 1))).get(0));
    }
  }

  @Test
  void epollTransportServesTheSameBytes() throws Exception {
    // Falls back to NIO where native epoll is unavailable; the bytes must be identical either way.
    try (ShuffleServer epoll = new ShuffleServer(ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(nm1, nm2)).useEpoll(true).build())) {
      epoll.start();
      epoll.registerApplication(APP, USER, SECRET);
      int[] lengths = {70_000, 0, 3};
      MapOutputs.write(appDirs, 9, 0, lengths);
      try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
        List<byte[]> data = client.fetch("127.0.0.1", epoll.port(),
            List.of(BlockId.of(9, 0, 0), new BlockId(9, 0, 1, 3)));
        assertArrayEquals(MapOutputs.expected(9, 0, lengths, 0, 1), data.get(0));
        assertArrayEquals(MapOutputs.expected(9, 0, lengths, 1, 3), data.get(1));
      }
    }
  }

  @Test
  void concurrentFetchesShareOneClient() throws Exception {
    int maps = 6;
    int[] lengths = {1000, 2000, 0, 3000};
    for (int m = 0; m < maps; m++) {
      MapOutputs.write(appDirs, 0, m, lengths);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 24; t++) {
        int reduce = t % lengths.length;
        results.add(pool.submit(() -> {
          List<BlockId> blocks = new ArrayList<>();
          for (int m = 0; m < maps; m++) {
            blocks.add(BlockId.of(0, m, reduce));
          }
          List<byte[]> data = fetch(client, blocks);
          for (int m = 0; m < maps; m++) {
            assertArrayEquals(MapOutputs.expected(0, m, lengths, reduce, reduce + 1), data.get(m));
          }
          return true;
        }));
      }
      for (Future<Boolean> r : results) {
        assertTrue(r.get());
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void wrongSecretIsAuth() {
    MapOutputsHolder.writeOne(appDirs);
    try (ShuffleClient client = new ShuffleClient(APP, "not-it".getBytes(StandardCharsets.UTF_8))) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.AUTH, e.reason());
      assertTrue(e.getMessage().contains("authentication failed for application " + APP
          + " at 127.0.0.1:" + server.port()), e.getMessage());
      assertEquals("127.0.0.1", e.host());
      assertEquals(server.port(), e.port());
    }
  }

  @Test
  void unknownApplicationIsAuth() {
    try (ShuffleClient client = new ShuffleClient("application_1700000000000_0404", SECRET)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.AUTH, e.reason());
    }
  }

  @Test
  void missingMapOutputIsNotFoundNamingTheBlocks() throws Exception {
    MapOutputs.write(appDirs, 1, 0, new int[] {5, 5});
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(BlockId.of(1, 0, 0), BlockId.of(1, 7, 1), BlockId.of(1, 0, 1))));
      assertEquals(Reason.NOT_FOUND, e.reason());
      assertEquals(List.of(BlockId.of(1, 7, 1)), e.blocks());
      assertTrue(e.getMessage().contains("shuffle 1 map 7"), e.getMessage());
      // The connection stays usable after an error reply.
      assertArrayEquals(MapOutputs.expected(1, 0, new int[] {5, 5}, 0, 2),
          fetch(client, List.of(new BlockId(1, 0, 0, 2))).get(0));
    }
  }

  @Test
  void truncatedOrVanishedDataIsNotFound() throws Exception {
    int[] lengths = {100, 100};
    MapOutputs.write(appDirs, 3, 0, lengths);
    MapOutputs.write(appDirs, 3, 1, lengths);
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      assertEquals(2, fetch(client, List.of(BlockId.of(3, 0, 1), BlockId.of(3, 1, 1))).size());
      Path data0 = ShuffleLayout.dataFile(ShuffleLayout.chooseAppDir(appDirs, 3, 0), 3, 0);
      try (FileChannel ch = FileChannel.open(data0, StandardOpenOption.WRITE)) {
        ch.truncate(150);
      }
      // Map 1's output is lost: its index (the commit marker) and data are gone.
      Files.delete(ShuffleLayout.indexFile(ShuffleLayout.chooseAppDir(appDirs, 3, 1), 3, 1));
      Files.delete(ShuffleLayout.dataFile(ShuffleLayout.chooseAppDir(appDirs, 3, 1), 3, 1));
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(BlockId.of(3, 0, 0), BlockId.of(3, 1, 0))));
      assertEquals(Reason.CORRUPT, e.reason(), "a truncated data file is the disk's doing");
      assertEquals(List.of(BlockId.of(3, 0, 0), BlockId.of(3, 1, 0)), e.blocks());
      assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }
  }

  @Test
  void dataFileUnlinkedUnderACommittedIndexIsStillServedFromTheOpenFile() throws Exception {
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, 5, 0);
    MapOutputs.write(appDir, 5, 0, new int[] {10, 20}, 1);
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      byte[] first = fetch(client, List.of(BlockId.of(5, 0, 1))).get(0);
      Files.delete(ShuffleLayout.dataFile(appDir, 5, 0));
      // The server keeps the committed data file open: the bytes it serves are still there.
      assertArrayEquals(first, fetch(client, List.of(BlockId.of(5, 0, 1))).get(0));
      assertArrayEquals(MapOutputs.expected(5, 0, new int[] {10, 20}, 1, 2), first);
    }
  }

  @Test
  void recomputedMapOutputIsServedFresh() throws Exception {
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, 4, 0);
    MapOutputs.write(appDir, 4, 0, new int[] {10, 20}, 1);
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      assertEquals(20, fetch(client, List.of(BlockId.of(4, 0, 1))).get(0).length);
      Files.delete(ShuffleLayout.indexFile(appDir, 4, 0));
      Files.delete(ShuffleLayout.dataFile(appDir, 4, 0));
      MapOutputs.write(appDir, 4, 0, new int[] {3, 40}, 2);
      assertArrayEquals(MapOutputs.expected(4, 0, new int[] {3, 40}, 1, 2),
          fetch(client, List.of(BlockId.of(4, 0, 1))).get(0));
    }
  }

  @Test
  void reduceRangePastThePartitionsIsABadRequest() throws Exception {
    MapOutputs.write(appDirs, 0, 0, new int[] {1, 1});
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(new BlockId(0, 0, 1, 3))));
      assertEquals(Reason.PROTOCOL, e.reason());
      assertTrue(e.getMessage().contains("has 2"), e.getMessage());
    }
  }

  @Test
  void forgottenApplicationIsRefusedOnOldAndNewConnections() throws Exception {
    MapOutputs.write(appDirs, 0, 0, new int[] {8});
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      assertEquals(8, fetch(client, List.of(BlockId.of(0, 0, 0))).get(0).length);
      server.removeApplication(APP);
      ShuffleFetchException onOld = assertThrows(ShuffleFetchException.class,
          () -> fetch(client, List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.AUTH, onOld.reason());
      assertTrue(onOld.getMessage().contains("not registered"), onOld.getMessage());
    }
    try (ShuffleClient fresh = new ShuffleClient(APP, SECRET)) {
      assertEquals(Reason.AUTH, assertThrows(ShuffleFetchException.class,
          () -> fetch(fresh, List.of(BlockId.of(0, 0, 0)))).reason());
    }
  }

  @Test
  void connectionRefusedIsConnect() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", closedPort, List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.CONNECT, e.reason());
      assertEquals(closedPort, e.port());
    }
  }

  @Test
  void replyLargerThanTheLimitIsRefusedUpFront() throws Exception {
    try (ShuffleServer small = new ShuffleServer(ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(nm1)).maxReplyBytes(1000).build())) {
      small.start();
      small.registerApplication(APP, USER, SECRET);
      MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm1, USER, APP)), 0, 0, new int[] {600, 600});
      try (ShuffleClient client = new ShuffleClient(APP, SECRET)) {
        ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
            () -> client.fetch("127.0.0.1", small.port(), List.of(new BlockId(0, 0, 0, 2))));
        assertEquals(Reason.PROTOCOL, e.reason());
        assertTrue(e.getMessage().contains("fetch fewer blocks"), e.getMessage());
        assertEquals(600, client.fetch("127.0.0.1", small.port(), List.of(BlockId.of(0, 0, 1)))
            .get(0).length);
      }
    }
  }

  @Test
  void silentServerIsTimeout() throws Exception {
    try (RawPeers.SilentServer silent = RawPeers.silentAfterHandshake(APP, SECRET);
         ShuffleClient client = new ShuffleClient(APP, SECRET,
             ShuffleClientConfig.DEFAULTS.withReadTimeout(Duration.ofMillis(300)))) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", silent.port(), List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.TIMEOUT, e.reason());
    }
  }

  /** Writes one small map output (shuffle 0, map 0). */
  static final class MapOutputsHolder {
    static void writeOne(List<Path> appDirs) {
      try {
        MapOutputs.write(appDirs, 0, 0, new int[] {4});
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
  }
}
