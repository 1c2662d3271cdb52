package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MessageTypes;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input on one connection gets an error reply; everyone else keeps being served. */
class ServerRobustnessTest {
  static final String APP = ShuffleServerTest.APP;
  static final String OTHER_APP = ShuffleServerTest.OTHER_APP;
  static final int[] LENGTHS = {3, 4};

  @TempDir Path nm;
  ShuffleServer server;
  ShuffleClient bystander;

  @BeforeEach
  void start() throws Exception {
    server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).maxRequestFrameBytes(4096).build());
    server.start();
    server.registerApplication(APP, "alice", ShuffleServerTest.SECRET);
    server.registerApplication(OTHER_APP, "bob", ShuffleServerTest.OTHER_SECRET);
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm, "alice", APP)), 0, 0, LENGTHS);
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm, "bob", OTHER_APP)), 0, 0, LENGTHS);
    bystander = new ShuffleClient(APP, ShuffleServerTest.SECRET);
    assertBystanderServed();
  }

  @AfterEach
  void stop() {
    bystander.close();
    server.close();
  }

  private void assertBystanderServed() throws Exception {
    assertArrayEquals(MapOutputs.expected(0, 0, LENGTHS, 0, 2), bystander.fetch("127.0.0.1",
        server.port(), List.of(new BlockId(0, 0, 0, 2))).get(0));
  }

  private RawPeers.RawClient rawClient() throws InterruptedException {
    return new RawPeers.RawClient(server.port(), APP, ShuffleServerTest.SECRET);
  }

  private static ByteBuf validRequest(long id, String appId) {
    return new FetchRequest(id, appId, List.of(BlockId.of(0, 0, 1))).toFrame(Unpooled.buffer().alloc());
  }

  private static void assertServed(RawPeers.RawClient raw, long id) throws InterruptedException {
    raw.write(validRequest(id, APP));
    FetchReply reply = assertInstanceOf(FetchReply.class, raw.nextReply());
    assertEquals(id, reply.requestId());
    assertEquals(LENGTHS[1], reply.blockLength(0));
  }

  @Test
  void requestForAnotherApplicationIsForbidden() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      raw.write(validRequest(7, OTHER_APP));
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(7, error.requestId());
      assertEquals(ErrorCode.FORBIDDEN, error.code());
      assertTrue(error.message().contains(OTHER_APP), error.message());
      assertServed(raw, 8);
    }
    assertBystanderServed();
  }

  @Test
  void malformedAndUnknownFramesGetErrorRepliesAndTheConnectionLives() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      raw.write(Unpooled.buffer().writeInt(3).writeByte(MessageTypes.FETCH_REQUEST).writeShort(1));
      ErrorReply truncated = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(-1, truncated.requestId());
      assertEquals(ErrorCode.BAD_REQUEST, truncated.code());

      raw.write(Unpooled.buffer().writeInt(2).writeByte(40).writeByte(0));
      ErrorReply unknown = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertTrue(unknown.message().contains("unknown"), unknown.message());

      raw.write(new FetchReply(3, new long[0]).toFrame(Unpooled.buffer().alloc()));
      ErrorReply wrongDirection = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(3, wrongDirection.requestId());
      assertEquals(ErrorCode.BAD_REQUEST, wrongDirection.code());

      assertServed(raw, 9);
    }
    assertBystanderServed();
  }

  @Test
  void oversizedFrameIsAnsweredAndSkipped() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      ByteBuf huge = Unpooled.buffer();
      huge.writeInt(100_001).writeByte(MessageTypes.FETCH_REQUEST).writeZero(100_000);
      raw.write(huge);
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.BAD_REQUEST, error.code());
      assertTrue(error.message().contains("exceeds the limit of 4096"), error.message());
      assertServed(raw, 10);
    }
    assertBystanderServed();
  }

  @Test
  void unrecoverableFrameIsAnsweredThenClosed() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      raw.write(Unpooled.buffer().writeInt(0).writeLong(12345));
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.BAD_REQUEST, error.code());
      Await.until(Duration.ofSeconds(5), "server closes the corrupt connection",
          () -> !raw.channel.isActive());
    }
    assertBystanderServed();
  }

  @Test
  void garbageFromAnUnauthenticatedPeerIsCutOff() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(5000);
      s.getOutputStream().write(new byte[] {(byte) 0xff, (byte) 0xff, 0, 1, 9, 9, 9});
      InputStream in = s.getInputStream();
      byte[] reply = in.readAllBytes();
      assertTrue(reply.length >= 5, "a refusal frame before the close");
    }
    assertBystanderServed();
  }

  @Test
  void negativeLengthIsAnsweredThenClosed() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      raw.write(Unpooled.buffer().writeInt(-5).writeByte(MessageTypes.FETCH_REQUEST));
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.BAD_REQUEST, error.code());
      assertTrue(error.message().contains("-5"), error.message());
      Await.until(Duration.ofSeconds(5), "server closes the corrupt connection",
          () -> !raw.channel.isActive());
    }
    assertBystanderServed();
  }

  @Test
  void badUtf8IsABadRequestAndTheConnectionLives() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      ByteBuf body = Unpooled.buffer().writeByte(MessageTypes.FETCH_REQUEST).writeLong(4)
          .writeShort(2).writeByte(0xC3).writeByte(0x28).writeInt(0);
      raw.write(Unpooled.buffer().writeInt(body.readableBytes()).writeBytes(body));
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.BAD_REQUEST, error.code());
      assertTrue(error.message().contains("not valid UTF-8"), error.message());
      assertServed(raw, 11);
    }
    assertBystanderServed();
  }

  @Test
  void idsThatLookLikePathsNeverReachTheFileSystem() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      // An application id with path segments is not the connection's application.
      raw.write(validRequest(12, "../../" + OTHER_APP));
      ErrorReply forbidden = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.FORBIDDEN, forbidden.code());
      // Block ids are ints: a negative one (what "-1" or a sign trick would give) is refused.
      ByteBuf body = Unpooled.buffer().writeByte(MessageTypes.FETCH_REQUEST).writeLong(13);
      io.netty.buffer.ByteBufUtil.writeUtf8(body.writeShort(APP.length()), APP);
      body.writeInt(1).writeInt(0).writeInt(-1).writeInt(0).writeInt(1);
      raw.write(Unpooled.buffer().writeInt(body.readableBytes()).writeBytes(body));
      ErrorReply negative = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.BAD_REQUEST, negative.code());
      assertTrue(negative.message().contains("invalid block"), negative.message());
      assertServed(raw, 14);
    }
    // A handshake for a path-like application is refused like any unknown one.
    try (ShuffleClient sneaky = new ShuffleClient("../../../etc", ShuffleServerTest.SECRET)) {
      assertEquals(dev.tide.shuffle.client.ShuffleFetchException.Reason.AUTH,
          org.junit.jupiter.api.Assertions.assertThrows(
              dev.tide.shuffle.client.ShuffleFetchException.class,
              () -> sneaky.fetch("127.0.0.1", server.port(), List.of(BlockId.of(0, 0, 0))))
              .reason());
    }
    // And such an id can never be registered, so it never becomes a directory name.
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> server.registerApplication("application_1_1/../../x", "alice", new byte[] {1}));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> server.registerApplication(APP, "../root", new byte[] {1}));
    assertBystanderServed();
  }

  @Test
  void corruptOrTruncatedIndexFilesAreRefusedAsCorrupt() throws Exception {
    Path appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
    int[] lengths = {5, 5};
    for (int m = 1; m <= 6; m++) {
      MapOutputs.write(appDir, 0, m, lengths, 1);
    }
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 1), new byte[12]); // no header
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 2), new byte[0]); // empty
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 3), // offsets go backwards
        dev.tide.shuffle.MapOutputIndexTest.withOffsets(new long[] {0, 8, 4}));
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 4), // past the data's end
        dev.tide.shuffle.MapOutputIndex.ofLengths(new long[] {5, 1L << 40}, null).encode());
    byte[] flipped = java.nio.file.Files.readAllBytes(ShuffleLayout.indexFile(appDir, 0, 5));
    flipped[15] ^= 0x10; // one bit of an offset: the index's own checksum catches it
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 5), flipped);
    byte[] whole = java.nio.file.Files.readAllBytes(ShuffleLayout.indexFile(appDir, 0, 6));
    java.nio.file.Files.write(ShuffleLayout.indexFile(appDir, 0, 6), // truncated tail
        java.util.Arrays.copyOf(whole, whole.length - 3));
    try (RawPeers.RawClient raw = rawClient()) {
      for (int m = 1; m <= 6; m++) {
        raw.write(new FetchRequest(20 + m, APP, List.of(BlockId.of(0, m, 0)))
            .toFrame(Unpooled.buffer().alloc()));
        ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
        assertEquals(20 + m, error.requestId());
        assertEquals(ErrorCode.CORRUPT, error.code(), error.message());
        assertEquals(List.of(BlockId.of(0, m, 0)), error.blocks());
        assertTrue(error.message().contains(m == 4 ? ".data" : ".index"), error.message());
      }
      assertServed(raw, 30);
    }
    assertBystanderServed();
  }

  @Test
  void requestsForAnApplicationForgottenMidConnectionAreForbidden() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      assertServed(raw, 40);
      server.removeApplication(APP);
      raw.write(validRequest(41, APP));
      ErrorReply error = assertInstanceOf(ErrorReply.class, raw.nextReply());
      assertEquals(ErrorCode.FORBIDDEN, error.code());
      assertTrue(error.message().contains("not registered"), error.message());
    }
    try (ShuffleClient other = new ShuffleClient(OTHER_APP, ShuffleServerTest.OTHER_SECRET)) {
      assertArrayEquals(MapOutputs.expected(0, 0, LENGTHS, 0, 2), other.fetch("127.0.0.1",
          server.port(), List.of(new BlockId(0, 0, 0, 2))).get(0));
    }
  }

  @Test
  void emptyRequestGetsAnEmptyReply() throws Exception {
    try (RawPeers.RawClient raw = rawClient()) {
      raw.write(new FetchRequest(5, APP, List.of()).toFrame(Unpooled.buffer().alloc()));
      FetchReply reply = assertInstanceOf(FetchReply.class, raw.nextReply());
      assertEquals(new FetchReply(5, new long[0]), reply);
    }
  }
}
