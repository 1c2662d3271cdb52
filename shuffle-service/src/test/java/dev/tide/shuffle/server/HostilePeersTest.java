package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.testing.CapturedLog;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an outside probe did to the server from PROTOCOL.md alone, done again on loopback: each
 * test is a hostile or broken peer, and asserts what the operator and the other applications
 * see — the server's direct memory stays small, another application is served (without BUSY),
 * and the log stays bounded and unforgeable.
 */
class HostilePeersTest {
  static final String APP = ShuffleServerTest.APP;
  static final byte[] SECRET = ShuffleServerTest.SECRET;
  static final String OTHER_APP = ShuffleServerTest.OTHER_APP;
  static final byte[] OTHER_SECRET = ShuffleServerTest.OTHER_SECRET;
  static final int[] LENGTHS = {1000, 100};
  static final BlockId BLOCK = BlockId.of(0, 0, 1);
  /** A client that fails at the first BUSY, so any BUSY shows. */
  static final ShuffleClientConfig NO_RETRIES =
      ShuffleClientConfig.DEFAULTS.withBusyRetries(0, Duration.ofMillis(100));
  /** Direct memory the server may hold while one peer misbehaves. */
  static final long SMALL_BOUND = 1 << 20;
  static final String HANDSHAKE_LOG = "dev.tide.network.ServerHandshakeHandler";

  @TempDir Path nm;
  ShuffleServer server;

  private void start(Consumer<ShuffleServerConfig.Builder> settings) throws Exception {
    ShuffleServerConfig.Builder b = ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).busyRetryAfter(Duration.ofMillis(50));
    settings.accept(b);
    server = new ShuffleServer(b.build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    server.registerApplication(OTHER_APP, "bob", OTHER_SECRET);
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm, "bob", OTHER_APP)), 0, 0, LENGTHS);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** The other application's fetch, with no BUSY retries: it must simply work. */
  private void assertBystanderServed() throws ShuffleFetchException {
    try (ShuffleClient client = new ShuffleClient(OTHER_APP, OTHER_SECRET, NO_RETRIES)) {
      byte[] got = client.fetch("127.0.0.1", server.port(), List.of(BLOCK)).get(0);
      assertArrayEquals(MapOutputs.expected(0, 0, LENGTHS, 1, 2), got);
    }
  }

  /** Samples the server's direct memory every millisecond until closed; keeps the peak. */
  private final class DirectMemoryPeak implements AutoCloseable {
    final AtomicLong peak = new AtomicLong();
    final AtomicBoolean running = new AtomicBoolean(true);
    final Thread sampler = new Thread(() -> {
      while (running.get()) {
        peak.accumulateAndGet(server.directMemoryInUse(), Math::max);
        try {
          Thread.sleep(1); // sampling period, not synchronization
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "direct-memory-sampler");

    DirectMemoryPeak() {
      sampler.setDaemon(true);
      sampler.start();
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      sampler.join();
      peak.accumulateAndGet(server.directMemoryInUse(), Math::max);
    }
  }

  private static ByteBuf frames(int count, int type) {
    ByteBuf b = Unpooled.buffer(count * 5);
    for (int i = 0; i < count; i++) {
      b.writeInt(1).writeByte(type);
    }
    return b;
  }

  @Test
  void nonReadingPeerFloodingMalformedFramesIsClosedWhileOthersAreServed() throws Exception {
    start(b -> { });
    long started = System.nanoTime();
    try (CapturedLog log = new CapturedLog(FetchRequestHandler.class.getName());
         RawPeers.RawClient flooder =
             new RawPeers.RawClient(server.port(), APP, SECRET, 1 << 20, 4096);
         DirectMemoryPeak direct = new DirectMemoryPeak()) {
      flooder.reading(false);
      int sent = 0;
      // 100,000 frames of a type the server does not know, in batches, never reading a reply.
      while (sent < 100_000 && flooder.channel.isActive()) {
        flooder.channel.writeAndFlush(frames(1000, 40));
        sent += 1000;
      }
      Await.until(Duration.ofSeconds(10), "the server to close the flooder's connection",
          () -> server.stats().openConnections() == 0);
      assertBystanderServed();
      direct.close();
      assertTrue(direct.peak.get() < SMALL_BOUND, "server direct memory peaked at "
          + direct.peak.get() + " bytes");
      assertEquals(FetchRequestHandler.MAX_BAD_FRAMES, server.stats().badFrames(),
          "frames handled before the connection was closed");
      List<String> lines = log.lines();
      assertTrue(lines.size() <= linesAllowed(3, started), lines.toString());
      assertTrue(lines.stream().anyMatch(l -> l.contains("after 8 malformed frames")),
          lines.toString());
      // Its replies may be lost with the close (the server resets a connection it has not read
      // out), but the flooder sees the connection end once it reads.
      flooder.reading(true);
      Await.until(Duration.ofSeconds(5), "the flooder to see the close",
          () -> !flooder.channel.isActive());
    }
  }

  @Test
  @Timeout(90)
  void peerThatStopsReadingIsNoLongerReadFromAndLosesNothing() throws Exception {
    start(b -> { });
    int requests = 100_000;
    try (CapturedLog log = new CapturedLog(FetchRequestHandler.class.getName());
         RawPeers.RawClient peer = new RawPeers.RawClient(server.port(), APP, SECRET, 1 << 20,
             4096);
         DirectMemoryPeak direct = new DirectMemoryPeak()) {
      long started = System.nanoTime();
      peer.reading(false);
      // Valid requests for a map output that does not exist: each is answered NOT_FOUND.
      ByteBuf batch = Unpooled.buffer();
      io.netty.channel.ChannelFuture lastWrite = null;
      for (int i = 0; i < requests; i++) {
        ByteBuf frame = new FetchRequest(i, APP, List.of(BlockId.of(0, 9, 0)))
            .toFrame(Unpooled.buffer().alloc());
        batch.writeBytes(frame);
        frame.release();
        if (batch.readableBytes() > 64 << 10 || i == requests - 1) {
          lastWrite = peer.channel.writeAndFlush(batch);
          batch = Unpooled.buffer();
        }
      }
      batch.release();
      io.netty.channel.ChannelFuture written = lastWrite;
      // Either the server took every request, or it stopped reading and the peer's own
      // buffers filled up.
      Await.until(Duration.ofSeconds(30), "all requests sent, or the server to stop reading",
          () -> written.isDone()
              || !peer.channel.isWritable() && server.stats().fetchesFailed() > 1000);
      assertBystanderServed();
      direct.close();
      assertTrue(direct.peak.get() < SMALL_BOUND, "server direct memory peaked at "
          + direct.peak.get() + " bytes while the peer did not read ("
          + server.stats().fetchesFailed() + " requests answered)");

      // Once it reads again, every request is answered exactly once (disk threads may answer
      // pipelined requests out of order).
      peer.reading(true);
      java.util.BitSet answered = new java.util.BitSet(requests);
      for (int i = 0; i < requests; i++) {
        ShuffleMessage m = peer.nextReply();
        ErrorReply error = assertInstanceOf(ErrorReply.class, m);
        assertEquals(ErrorCode.NOT_FOUND, error.code());
        assertFalse(answered.get((int) error.requestId()), "answered twice: " + m);
        answered.set((int) error.requestId());
      }
      assertEquals(requests, answered.cardinality());
      assertTrue(peer.channel.isActive());
      // One line plus one count line per 10 s aggregation window the test spanned.
      assertTrue(log.lines().size() <= linesAllowed(2, started), "log lines: " + log.lines());
    }
  }

  @Test
  void partialOneMebibyteHellosLeaveAuthenticatedClientsUnaffected() throws Exception {
    start(b -> { });
    long started = System.nanoTime();
    List<Socket> stalled = new ArrayList<>();
    try (CapturedLog log = new CapturedLog(HANDSHAKE_LOG);
         DirectMemoryPeak direct = new DirectMemoryPeak()) {
      byte[] body = new byte[(1 << 20) - 4096];
      for (int i = 0; i < 300; i++) {
        Socket s = new Socket();
        stalled.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
        try {
          OutputStream out = s.getOutputStream();
          // A HELLO frame announcing 1 MiB, most of it sent, the rest never.
          out.write(new byte[] {0, 0x10, 0, 0, 1, 1});
          out.write(body);
          out.flush();
        } catch (IOException refused) {
          // The server may already have closed it: that is the point.
        }
      }
      assertBystanderServed();
      direct.close();
      assertTrue(direct.peak.get() < SMALL_BOUND, "server direct memory peaked at "
          + direct.peak.get() + " bytes");
      assertEquals(0, server.stats().busyReplies());
      assertEquals(300, server.stats().authFailures());
      assertTrue(log.lines().size() <= linesAllowed(2, started), log.lines().toString());
      assertTrue(log.lines().get(0).contains("exceeds the limit of 293"), log.lines().get(0));
    } finally {
      for (Socket s : stalled) {
        s.close();
      }
    }
  }

  @Test
  void connectionsThatNeverAuthenticateCannotKeepOthersOut() throws Exception {
    start(b -> b.maxConnections(64).maxUnauthenticatedConnections(16));
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
        idle.add(s);
      }
      Await.until(Duration.ofSeconds(5), "48 of the idle connections to be closed for room",
          () -> server.stats().unauthenticatedPushedOut() == 48
              && server.stats().openConnections() == 16);
      assertEquals(16, server.stats().unauthenticatedConnections());
      assertBystanderServed();
      assertEquals(0, server.stats().connectionsRefused());
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
    Await.until(Duration.ofSeconds(5), "the idle connections to be counted closed",
        () -> server.stats().unauthenticatedConnections() == 0
            && server.stats().openConnections() == 0);
  }

  @Test
  void applicationIdWithNewlineOrNulYieldsOneEscapedLine() throws Exception {
    start(b -> { });
    String forged = "application_1_0001\n2026-11-25 10:00:00,000 INFO  forged line\0end";
    try (CapturedLog log = new CapturedLog(HANDSHAKE_LOG)) {
      assertThrows(ShuffleFetchException.class, () -> {
        try (ShuffleClient client = new ShuffleClient(forged, SECRET, NO_RETRIES)) {
          client.fetch("127.0.0.1", server.port(), List.of(BLOCK));
        }
      });
      Await.until(Duration.ofSeconds(5), "the refusal to be logged", () -> !log.lines().isEmpty());
      List<String> lines = log.lines();
      assertEquals(1, lines.size(), lines.toString());
      String line = lines.get(0);
      assertFalse(line.contains("\n") || line.contains("\0"), line);
      assertTrue(line.contains("application_1_0001\\n2026-11-25 10:00:00,000 INFO  forged"
          + " line\\0end"), line);
    }
  }

  @Test
  void requestForAnotherApplicationLogsTheIdEscaped() throws Exception {
    start(b -> { });
    try (CapturedLog log = new CapturedLog(FetchRequestHandler.class.getName());
         RawPeers.RawClient peer = new RawPeers.RawClient(server.port(), APP, SECRET)) {
      peer.write(new FetchRequest(5, OTHER_APP + "\r\nWARN forged", List.of(BLOCK))
          .toFrame(Unpooled.buffer().alloc()));
      assertEquals(ErrorCode.FORBIDDEN,
          assertInstanceOf(ErrorReply.class, peer.nextReply()).code());
      List<String> lines = log.lines();
      assertEquals(1, lines.size(), lines.toString());
      assertFalse(lines.get(0).contains("\n") || lines.get(0).contains("\r"), lines.get(0));
      assertTrue(lines.get(0).contains(OTHER_APP + "\\r\\nWARN forged"), lines.get(0));
    }
  }

  @Test
  void notFoundForTenThousandBlocksLogsUnderFourKilobytes() throws Exception {
    start(b -> { });
    List<BlockId> missing = IntStream.range(0, 10_000)
        .mapToObj(m -> BlockId.of(0, 100 + m, 0)).toList();
    try (CapturedLog log = new CapturedLog(FetchRequestHandler.class.getName(),
            MapOutputResolver.class.getName());
         ShuffleClient client = new ShuffleClient(OTHER_APP, OTHER_SECRET, NO_RETRIES)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", server.port(), missing));
      assertEquals(Reason.NOT_FOUND, e.reason());
      assertTrue(log.chars() > 0, "the refusal is logged");
      assertTrue(log.chars() < 4096, log.chars() + " chars logged: " + log.lines());
    }
  }

  @Test
  void thousandsOfRefusedAndResetConnectionsLogABoundedNumberOfLines() throws Exception {
    start(b -> b.maxConnections(1));
    long started = System.nanoTime();
    try (CapturedLog log = new CapturedLog(ConnectionGate.class.getName(), HANDSHAKE_LOG);
         Socket holder = new Socket()) {
      holder.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
      Await.until(Duration.ofSeconds(5), "the holder to be admitted",
          () -> server.stats().openConnections() == 1);
      for (int i = 0; i < 2000; i++) {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
        }
      }
      // A deadline, not a speed: on a loaded 2-core machine the accepts lagged past 10 s.
      Await.until(Duration.ofSeconds(60),
          () -> "2,000 refusals; " + server.stats().connectionsRefused() + " so far",
          () -> server.stats().connectionsRefused() == 2000);
      assertTrue(log.lines().size() <= linesAllowed(4, started),
          log.lines().size() + " lines: " + log.lines());
    }
    server.close();
    start(b -> { });
    started = System.nanoTime();
    try (CapturedLog log = new CapturedLog(ConnectionGate.class.getName(), HANDSHAKE_LOG)) {
      for (int i = 0; i < 2000; i++) {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
          s.setSoLinger(true, 0); // close with a reset, mid-handshake
          s.getOutputStream().write(new byte[] {0, 0, 0, 40, 1, 1});
        }
      }
      Await.until(Duration.ofSeconds(60),
          () -> "the resets to be seen; " + server.stats().openConnections() + " still open",
          () -> server.stats().openConnections() == 0);
      assertTrue(log.lines().size() <= linesAllowed(4, started),
          log.lines().size() + " lines: " + log.lines());
    }
  }

  /**
   * {@code perWindow} log lines for each 10 s window of the server's log throttle that the test
   * spanned since {@code startedNanos}: what the throttle keeps to however slowly the machine
   * runs the test (the flood's size does not count).
   */
  private static long linesAllowed(int perWindow, long startedNanos) {
    return perWindow * ((System.nanoTime() - startedNanos) / 10_000_000_000L + 1);
  }
}
