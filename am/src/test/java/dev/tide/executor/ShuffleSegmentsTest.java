package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.KeyValue;
import dev.tide.executor.sort.RecordOutput;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.server.ShuffleServer;
import dev.tide.shuffle.server.ShuffleServerConfig;
import dev.tide.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reduce task's input through a real shuffle service on loopback, map outputs written in the
 * executors' record layout with their segments' CRC32Cs: one flipped bit in a record's payload
 * or in a length prefix on the service's disk is detected and diagnosed {@code disk} (the map
 * output is lost at once); a bit flipped on the way is diagnosed {@code network} and fetched
 * again.
 *
 * <p>Here rather than in driver-runtime beside the class it tests: that module does not depend on
 * the shuffle service's, so their builds and tests run side by side (`mvn -T 2`).
 */
class ShuffleSegmentsTest {
  private static final String APP = "application_1700000000000_0042";
  private static final byte[] SECRET = "segments-secret".getBytes(StandardCharsets.UTF_8);
  private static final int SHUFFLE = 3;
  private static final int MAPS = 2;
  private static final int RECORDS = 50;
  /** varint(6) | "k00000" | varint(20) | 20 value bytes. */
  private static final int RECORD_BYTES = 1 + 6 + 1 + 20;

  @TempDir Path nm;
  @TempDir Path work;
  ShuffleServer server;
  ShuffleClient client;
  Path appDir;

  @BeforeEach
  void start() throws IOException {
    server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
    for (int m = 0; m < MAPS; m++) {
      writeMapOutput(m);
    }
    client = new ShuffleClient(APP, SECRET);
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  /** One partition of RECORDS sorted records, keys k{m}{i}, committed with its CRC32C. */
  private void writeMapOutput(int map) throws IOException {
    Path temp = MapOutputCommitter.tempDataFile(appDir, SHUFFLE, map, 1);
    int checksum;
    long length;
    try (OutputStream file = Files.newOutputStream(temp)) {
      RecordOutput out = new RecordOutput(file);
      for (int i = 0; i < RECORDS; i++) {
        out.write(String.format("k%d%04d", map, i).getBytes(StandardCharsets.US_ASCII),
            String.format("value-%d-%012d", map, i).getBytes(StandardCharsets.US_ASCII));
      }
      checksum = out.takeChecksum();
      length = out.bytes();
    }
    assertEquals((long) RECORDS * RECORD_BYTES, length);
    assertTrue(MapOutputCommitter.commit(appDir, SHUFFLE, map, temp, new long[] {length},
        new int[] {checksum}));
  }

  private TaskDescription reduce(int port) {
    List<MapLocation> locations = new ArrayList<>();
    for (int m = 0; m < MAPS; m++) {
      locations.add(new MapLocation(m, "127.0.0.1", port));
    }
    return new TaskDescription(9, TaskDescription.Kind.REDUCE, SHUFFLE + 1, 0, 0, "r",
        new byte[0], List.of(), List.of(new TaskDescription.ShuffleInput(SHUFFLE, locations)),
        1, null, "", null, new byte[0]);
  }

  private List<String> readAll(ShuffleSegments segments) {
    List<String> keys = new ArrayList<>();
    Iterator<KeyValue> records = segments.records();
    while (records.hasNext()) {
      keys.add(new String(records.next().key(), StandardCharsets.US_ASCII));
    }
    return keys;
  }

  private ShuffleSegments segments(int port) {
    return new ShuffleSegments(client, reduce(port), 1 << 20, work.resolve("in"), true);
  }

  private void flipBit(long at, int bit) throws IOException {
    try (FileChannel ch = FileChannel.open(ShuffleLayout.dataFile(appDir, SHUFFLE, 1),
        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ (1 << bit))).rewind();
      ch.write(one, at);
    }
  }

  /**
   * The service's count of fetches served, once it has reached {@code expected}: it counts a
   * fetch when the reply's write completes, which the client may see first.
   */
  private long servedOnceWritten(long expected) {
    Await.until(Duration.ofSeconds(30), "the service to count " + expected + " fetches served",
        () -> server.stats().fetchesServed() >= expected);
    return server.stats().fetchesServed();
  }

  @Test
  void aReduceFetchesAMovedOutputFromItsNewPlaceNotTheOneItWasLaunchedWith() throws Exception {
    int gone;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      gone = closed.getLocalPort(); // nothing listens there once closed: the node that left
    }
    MovedMapOutputs moved = new MovedMapOutputs();
    moved.moved(SHUFFLE, List.of(new MapLocation(0, "127.0.0.1", server.port()),
        new MapLocation(1, "127.0.0.1", server.port())));
    moved.moved(SHUFFLE + 1, List.of(new MapLocation(0, "127.0.0.1", gone)));
    try (ShuffleSegments segments = new ShuffleSegments(client, reduce(gone), 1 << 20,
        work.resolve("in"), true, moved)) {
      List<String> keys = readAll(segments);
      assertEquals(MAPS * RECORDS, keys.size());
      assertEquals("k00000", keys.get(0));
    }
  }

  @Test
  void intactSegmentsAreReadWhole() throws IOException {
    try (ShuffleSegments segments = segments(server.port())) {
      assertEquals(MAPS * RECORDS, readAll(segments).size());
      assertEquals(null, segments.metrics().get("checksumMismatches"));
    }
  }

  @Test
  void aFlippedBitInARecordsPayloadIsDetectedAndDiagnosedAsTheDisk() throws IOException {
    flipBit(17L * RECORD_BYTES + 12, 3); // inside record 17's value
    assertLostOnDisk();
  }

  @Test
  void aFlippedBitInALengthPrefixIsDetectedAndDiagnosedAsTheDisk() throws IOException {
    flipBit(30L * RECORD_BYTES + 7, 0); // record 30's value length: 20 -> 21
    assertLostOnDisk();
  }

  private void assertLostOnDisk() throws IOException {
    try (ShuffleSegments segments = segments(server.port())) {
      ShuffleSegments.FetchFailedException e = assertThrows(
          ShuffleSegments.FetchFailedException.class, () -> readAll(segments));
      assertEquals("disk", e.lossCause());
      assertEquals(List.of(1), e.lostMapIds());
      assertEquals(SHUFFLE, e.shuffleId());
      assertTrue(e.getMessage().startsWith("shuffle 3 map 1 partition 0 from 127.0.0.1:"
          + server.port() + " lost (cause: disk): "), e.getMessage());
      assertTrue(e.getMessage().contains("the file on the node's disk is damaged"),
          e.getMessage());
      assertEquals(1, server.stats().verifiedDamaged(), "asked the service once, no refetch");
      assertEquals(1, servedOnceWritten(1));
    }
  }

  @Test
  void aBitFlippedOnTheWayIsDiagnosedAsTheNetworkAndFetchedAgain() throws Exception {
    // 37 (CHALLENGE) + 37 (OK) + FETCH_REPLY header (13 + 16 per block) + 100 bytes of data.
    long flipAt = 37 + 37 + 13 + 16 * MAPS + 100;
    try (FlippingProxy proxy = new FlippingProxy(server.port(), flipAt);
         ShuffleSegments segments = segments(proxy.port())) {
      assertEquals(MAPS * RECORDS, readAll(segments).size());
      assertTrue(proxy.flipped.get());
      assertEquals(1L, segments.metrics().get("checksumMismatches"));
      assertEquals(1L, segments.metrics().get("corruptBlocksNetwork"));
      assertEquals(2, servedOnceWritten(2), "fetched once more");
      assertEquals(1, server.stats().verifiesServed());
      assertEquals(0, server.stats().verifiedDamaged());
    }
  }

  /**
   * Forwards one connection to the service, flipping one bit of the byte at {@code flipAt} of
   * what the service sends (once): damage on the way, the file on disk intact.
   */
  private static final class FlippingProxy implements AutoCloseable {
    final AtomicBoolean flipped = new AtomicBoolean();
    private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private final List<Socket> sockets = new ArrayList<>();

    FlippingProxy(int target, long flipAt) throws IOException {
      Thread accept = new Thread(() -> {
        try {
          Socket in = listener.accept();
          Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
          synchronized (sockets) {
            sockets.add(in);
            sockets.add(out);
          }
          pump(in.getInputStream(), out.getOutputStream(), -1);
          pump(out.getInputStream(), in.getOutputStream(), flipAt);
        } catch (IOException e) {
          // closed
        }
      }, "flipping-proxy");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    private void pump(InputStream from, OutputStream to, long flipAt) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[8192];
        long seen = 0;
        try {
          for (int n; (n = from.read(buf)) > 0; seen += n) {
            if (flipAt >= seen && flipAt < seen + n && flipped.compareAndSet(false, true)) {
              buf[(int) (flipAt - seen)] ^= 0x10;
            }
            to.write(buf, 0, n);
            to.flush();
          }
        } catch (IOException e) {
          // closed
        }
      }, "flipping-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      listener.close();
      synchronized (sockets) {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }
}
