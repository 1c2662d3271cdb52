package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MessageTypes;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every limit of the server, reached on loopback (the disk queue's is in
 * {@link DiskQueueBusyTest}): the one over the limit is told BUSY (with the
 * retry-after), everyone else keeps being served, and a client that backs off gets served once
 * the limit clears. A stalled reader (autoRead off, tiny receive buffer) keeps a large reply in
 * flight for as long as a test needs.
 */
class ServerLimitsTest {
  static final String APP = ShuffleServerTest.APP;
  static final byte[] SECRET = ShuffleServerTest.SECRET;
  /**
   * Partition 0 is far larger than the loopback socket buffers (Linux's default maximum send
   * buffer is 4 MiB), so its reply stays in flight while the reader does not read.
   */
  static final int[] LENGTHS = {32 << 20, 100};
  static final BlockId BIG = BlockId.of(0, 0, 0);
  static final BlockId SMALL = BlockId.of(0, 0, 1);
  static final ShuffleClientConfig NO_RETRIES =
      ShuffleClientConfig.DEFAULTS.withBusyRetries(0, Duration.ofMillis(100));
  static final ShuffleClientConfig PATIENT =
      ShuffleClientConfig.DEFAULTS.withBusyRetries(50, Duration.ofMillis(100));

  @TempDir Path nm;
  ShuffleServer server;

  private void start(Consumer<ShuffleServerConfig.Builder> limits) throws Exception {
    ShuffleServerConfig.Builder b = ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).busyRetryAfter(Duration.ofMillis(50));
    limits.accept(b);
    server = new ShuffleServer(b.build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm, "alice", APP)), 0, 0, LENGTHS);
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private byte[] fetchSmall(ShuffleClient client) throws ShuffleFetchException {
    return client.fetch("127.0.0.1", server.port(), List.of(SMALL)).get(0);
  }

  private static byte[] expectedSmall() {
    return MapOutputs.expected(0, 0, LENGTHS, 1, 2);
  }

  private RawPeers.RawClient stalledReader() throws InterruptedException {
    return new RawPeers.RawClient(server.port(), APP, SECRET, 64 << 20, 8192);
  }

  private static ByteBuf request(long id, BlockId block) {
    return new FetchRequest(id, APP, List.of(block)).toFrame(Unpooled.buffer().alloc());
  }

  /** Asks for the big block on a reader that does not read: its reply stays in flight. */
  private void stallBigReply(RawPeers.RawClient reader) {
    reader.reading(false);
    reader.write(request(1, BIG));
    Await.until(Duration.ofSeconds(5), "big reply admitted", () -> server.inFlightBytes() > 0);
  }

  private static void assertBusy(ShuffleFetchException e, String about) {
    assertEquals(Reason.BUSY, e.reason(), e.getMessage());
    assertTrue(e.getMessage().contains(about), e.getMessage());
  }

  @Test
  void connectionOverTheLimitIsToldBusyAndServedAfterBackingOff() throws Exception {
    start(b -> b.maxConnections(2));
    try (RawPeers.RawClient first = new RawPeers.RawClient(server.port(), APP, SECRET);
         ShuffleClient holder = new ShuffleClient(APP, SECRET)) {
      assertArrayEquals(expectedSmall(), fetchSmall(holder));
      assertEquals(2, server.stats().openConnections());

      try (ShuffleClient impatient = new ShuffleClient(APP, SECRET, NO_RETRIES)) {
        ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
            () -> fetchSmall(impatient));
        assertBusy(e, "2 connections open");
        assertTrue(e.getMessage().contains("retry after 50 ms"), e.getMessage());
      }
      assertEquals(1, server.stats().connectionsRefused());
      try (ShuffleClient bounded = new ShuffleClient(APP, SECRET,
          ShuffleClientConfig.DEFAULTS.withBusyRetries(2, Duration.ofMillis(60)))) {
        assertBusy(assertThrows(ShuffleFetchException.class, () -> fetchSmall(bounded)),
            "still busy after 2 retries");
      }
      assertEquals(4, server.stats().connectionsRefused());
      // Those already connected are still served.
      assertArrayEquals(expectedSmall(), fetchSmall(holder));
      first.write(request(2, SMALL));
      assertEquals(2, assertInstanceOf(FetchReply.class, first.nextReply()).requestId());

      try (ShuffleClient patient = new ShuffleClient(APP, SECRET, PATIENT)) {
        CompletableFuture<byte[]> later = CompletableFuture.supplyAsync(() -> {
          try {
            return fetchSmall(patient);
          } catch (ShuffleFetchException e) {
            throw new AssertionError(e);
          }
        });
        Await.until(Duration.ofSeconds(5), "the patient client to be refused at least once",
            () -> server.stats().connectionsRefused() >= 5);
        assertFalse(later.isDone());
        first.close();
        assertArrayEquals(expectedSmall(), later.get(10, TimeUnit.SECONDS));
      }
    }
  }

  @Test
  void perConnectionInFlightLimitAnswersBusyOnThatConnectionOnly() throws Exception {
    start(b -> b.maxInFlightBytesPerConnection(1 << 20));
    try (RawPeers.RawClient reader = stalledReader();
         ShuffleClient bystander = new ShuffleClient(APP, SECRET, NO_RETRIES)) {
      stallBigReply(reader);
      reader.write(request(2, SMALL));
      Await.until(Duration.ofSeconds(5), "a BUSY answer", () -> server.stats().busyReplies() == 1);
      // Another connection is under its own limit and the server's.
      assertArrayEquals(expectedSmall(), fetchSmall(bystander));

      reader.reading(true);
      FetchReply big = assertInstanceOf(FetchReply.class, reader.nextReply());
      assertEquals(1, big.requestId());
      assertEquals(LENGTHS[0], big.blockLength(0));
      ErrorReply busy = assertInstanceOf(ErrorReply.class, reader.nextReply());
      assertEquals(2, busy.requestId());
      assertEquals(ErrorCode.BUSY, busy.code());
      assertEquals(50, busy.retryAfterMillis());
      assertTrue(busy.message().contains("this connection has"), busy.message());
      // Drained: the same connection is served again.
      reader.write(request(3, SMALL));
      assertEquals(3, assertInstanceOf(FetchReply.class, reader.nextReply()).requestId());
    }
  }

  @Test
  void serverInFlightLimitAnswersBusyAndAPatientClientIsServedOnceItClears() throws Exception {
    start(b -> b.maxInFlightBytes(1 << 20));
    try (RawPeers.RawClient reader = stalledReader();
         ShuffleClient impatient = new ShuffleClient(APP, SECRET, NO_RETRIES);
         ShuffleClient patient = new ShuffleClient(APP, SECRET, PATIENT)) {
      stallBigReply(reader);
      assertBusy(assertThrows(ShuffleFetchException.class, () -> fetchSmall(impatient)),
          "reply bytes in flight");

      long busyBefore = server.stats().busyReplies();
      CompletableFuture<byte[]> later = CompletableFuture.supplyAsync(() -> {
        try {
          return fetchSmall(patient);
        } catch (ShuffleFetchException e) {
          throw new AssertionError(e);
        }
      });
      Await.until(Duration.ofSeconds(5), "the patient client to be told BUSY",
          () -> server.stats().busyReplies() > busyBefore);
      reader.reading(true);
      assertEquals(LENGTHS[0], assertInstanceOf(FetchReply.class, reader.nextReply())
          .blockLength(0));
      assertArrayEquals(expectedSmall(), later.get(10, TimeUnit.SECONDS));
      Await.until(Duration.ofSeconds(5), "nothing in flight", () -> server.inFlightBytes() == 0);
    }
  }

  @Test
  void directMemoryCapAnswersBusyUntilTheMemoryIsReleased() throws Exception {
    start(b -> b.maxDirectMemoryBytes(1 << 20).maxRequestFrameBytes(8 << 20));
    try (RawPeers.RawClient hog = new RawPeers.RawClient(server.port(), APP, SECRET);
         RawPeers.RawClient other = new RawPeers.RawClient(server.port(), APP, SECRET);
         ShuffleClient impatient = new ShuffleClient(APP, SECRET, NO_RETRIES)) {
      // 3 MiB of a 4 MiB frame: the server must hold them until the rest arrives.
      int frame = 4 << 20;
      hog.write(Unpooled.buffer().writeInt(frame).writeByte(MessageTypes.FETCH_REQUEST)
          .writeZero(3 << 20));
      Await.until(Duration.ofSeconds(5), "the partial frame to be buffered",
          () -> server.directMemoryInUse() > (1 << 20));

      assertBusy(assertThrows(ShuffleFetchException.class, () -> fetchSmall(impatient)),
          "direct memory");
      other.write(request(5, SMALL));
      ErrorReply busy = assertInstanceOf(ErrorReply.class, other.nextReply());
      assertEquals(ErrorCode.BUSY, busy.code());
      assertTrue(busy.message().contains("direct memory"), busy.message());

      // The rest of the frame arrives: it is garbage, answered, and its buffer released.
      hog.write(Unpooled.buffer().writeZero(frame - 1 - (3 << 20)));
      assertEquals(ErrorCode.BAD_REQUEST,
          assertInstanceOf(ErrorReply.class, hog.nextReply()).code());
      Await.until(Duration.ofSeconds(5), "the buffer to be released",
          () -> server.directMemoryInUse() <= (1 << 20));
      other.write(request(6, SMALL));
      assertEquals(6, assertInstanceOf(FetchReply.class, other.nextReply()).requestId());
      assertArrayEquals(expectedSmall(), fetchSmall(impatient));
    }
  }

  @Test
  void idleConnectionIsClosedAndOthersAreServed() throws Exception {
    start(b -> b.idleTimeout(Duration.ofMillis(300)));
    try (RawPeers.RawClient idle = new RawPeers.RawClient(server.port(), APP, SECRET);
         ShuffleClient client = new ShuffleClient(APP, SECRET)) {
      assertArrayEquals(expectedSmall(), fetchSmall(client));
      Await.until(Duration.ofSeconds(5), "the idle connection to be closed",
          () -> !idle.channel.isActive());
      Await.until(Duration.ofSeconds(5), "the client's idle connection to be closed too",
          () -> server.stats().openConnections() == 0);
      assertTrue(server.stats().idleConnectionsClosed() >= 2);
      // The client's connection went idle too; it reconnects on the next fetch.
      assertArrayEquals(expectedSmall(), fetchSmall(client));
    }
  }

  @Test
  void aReplyLargerThanTheInFlightLimitsIsStillServedAlone() throws Exception {
    start(b -> b.maxInFlightBytes(1 << 20).maxInFlightBytesPerConnection(1 << 20));
    try (ShuffleClient client = new ShuffleClient(APP, SECRET, NO_RETRIES)) {
      assertEquals(LENGTHS[0], client.fetch("127.0.0.1", server.port(), List.of(BIG)).get(0).length);
      assertEquals(0, server.stats().busyReplies());
    }
  }
}
