package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.HandshakeMessage.Busy;
import dev.tide.network.HandshakeMessage.Challenge;
import dev.tide.network.HandshakeMessage.Hello;
import dev.tide.network.HandshakeMessage.Ok;
import dev.tide.network.HandshakeMessage.Reject;
import dev.tide.network.HandshakeMessage.Response;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every handshake message is written as a frame on one channel, split by the real
 * {@link FrameDecoder} on another and decoded back equal; its bytes are those PROTOCOL.md shows;
 * truncated, oversized and invalid bodies of every type are refused with a reason.
 */
class HandshakeMessagesTest {
  private static final String APP = "application_1700000000000_0001";

  /** Frames handshake messages the way the handshake handlers do. */
  private static final class HandshakeEncoder extends MessageToMessageEncoder<HandshakeMessage> {
    @Override
    protected void encode(ChannelHandlerContext ctx, HandshakeMessage msg, List<Object> out) {
      out.add(msg.toFrame(ctx.alloc()));
    }
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (seed + i);
    }
    return b;
  }

  /** Sends the message through an encoding channel and a decoding channel, byte by byte. */
  private static HandshakeMessage roundTrip(HandshakeMessage message) {
    EmbeddedChannel sender = new EmbeddedChannel(new HandshakeEncoder());
    EmbeddedChannel receiver = new EmbeddedChannel(new FrameDecoder(1 << 16));
    try {
      assertTrue(sender.writeOutbound(message));
      ByteBuf frame = sender.readOutbound();
      assertEquals(Frames.HEADER_BYTES + message.encodedLength(), frame.readableBytes());
      // Arriving one byte at a time, the frame is complete only with its last byte.
      while (frame.readableBytes() > 1) {
        receiver.writeInbound(frame.readRetainedSlice(1));
        assertNull(receiver.readInbound());
      }
      receiver.writeInbound(frame);
      ByteBuf body = receiver.readInbound();
      try {
        assertEquals(message.type(), body.getByte(body.readerIndex()));
        HandshakeMessage decoded = HandshakeMessages.decode(body);
        assertEquals(0, body.readableBytes());
        return decoded;
      } finally {
        body.release();
        assertNull(receiver.readInbound());
      }
    } finally {
      sender.finishAndReleaseAll();
      receiver.finishAndReleaseAll();
    }
  }

  private static void assertRoundTrips(HandshakeMessage message) {
    HandshakeMessage decoded = roundTrip(message);
    assertEquals(message, decoded);
    assertEquals(message.hashCode(), decoded.hashCode());
    assertEquals(message.type(), decoded.type());
  }

  @Test
  void helloRoundTrips() {
    Hello hello = new Hello(APP, bytes(32, 1));
    assertRoundTrips(hello);
    assertEquals(HandshakeMessages.VERSION, ((Hello) roundTrip(hello)).version());
    assertRoundTrips(new Hello("application_\u00e9_1", bytes(32, 9)));
    assertRoundTrips(new Hello("a".repeat(HandshakeMessages.MAX_APP_ID_BYTES), bytes(32, 3)));
  }

  @Test
  void encryptingHelloIsVersion2WithAFlagsByteAfterTheVersion1Layout() {
    Hello plain = new Hello(APP, bytes(32, 1));
    Hello encrypting = new Hello(APP, bytes(32, 1), true);
    assertRoundTrips(encrypting);
    assertEquals(HandshakeMessages.VERSION_ENCRYPTING, ((Hello) roundTrip(encrypting)).version());
    ByteBuf a = plain.toFrame(ByteBufAllocator.DEFAULT);
    ByteBuf b = encrypting.toFrame(ByteBufAllocator.DEFAULT);
    try {
      assertEquals(a.readableBytes() + 1, b.readableBytes());
      assertEquals(1, a.getByte(5), "an unencrypting client's HELLO is version 1, as before");
      assertEquals(2, b.getByte(5));
      assertEquals(a.slice(6, a.readableBytes() - 6), b.slice(6, a.readableBytes() - 6));
      assertEquals(HandshakeMessages.FLAG_ENCRYPT, b.getByte(b.readableBytes() - 1));
      b.setByte(b.readableBytes() - 1, 3);
      b.skipBytes(4);
      MalformedFrameException e = assertThrows(MalformedFrameException.class,
          () -> HandshakeMessages.decode(b));
      assertTrue(e.getMessage().contains("flags 3"), e.getMessage());
    } finally {
      a.release();
      b.release();
    }
  }

  @Test
  void proofsOfAnEncryptingHandshakeDifferSoAHelloCannotBeDowngraded() {
    byte[] secret = bytes(16, 7);
    byte[] cn = bytes(32, 1);
    byte[] sn = bytes(32, 2);
    assertFalse(java.util.Arrays.equals(HandshakeMessages.clientProof(secret, APP, cn, sn, false),
        HandshakeMessages.clientProof(secret, APP, cn, sn, true)));
    assertFalse(java.util.Arrays.equals(HandshakeMessages.serverProof(secret, APP, cn, sn, false),
        HandshakeMessages.serverProof(secret, APP, cn, sn, true)));
  }

  @Test
  void theLongestHelloFitsTheServersPreAuthenticationFrameLimit() {
    Hello longest = new Hello("\u00e9".repeat(HandshakeMessages.MAX_APP_ID_BYTES / 2),
        bytes(32, 4), true);
    ByteBuf frame = longest.toFrame(ByteBufAllocator.DEFAULT);
    try {
      assertEquals(HandshakeMessages.MAX_CLIENT_HANDSHAKE_FRAME_BYTES, frame.getInt(0));
    } finally {
      frame.release();
    }
  }

  @Test
  void challengeRoundTrips() {
    assertRoundTrips(new Challenge(bytes(32, 40)));
  }

  @Test
  void responseRoundTrips() {
    assertRoundTrips(new Response(bytes(32, 80)));
  }

  @Test
  void okRoundTrips() {
    assertRoundTrips(new Ok(bytes(32, 120)));
  }

  @Test
  void rejectRoundTrips() {
    assertRoundTrips(new Reject("authentication failed"));
    assertRoundTrips(new Reject(""));
    assertRoundTrips(new Reject("r\u00e9ason \u2603"));
  }

  @Test
  void busyRoundTrips() {
    assertRoundTrips(new Busy(750, "at the connection limit (2048)"));
    assertRoundTrips(new Busy(0, ""));
    assertRoundTrips(new Busy(Integer.MAX_VALUE, "x"));
  }

  @Test
  void wireBytesAreThoseOfProtocolMd() {
    byte[] nonce = bytes(32, 7);
    ByteBuf hello = frame(HandshakeMessages.HELLO, b -> {
      b.writeByte(1);
      b.writeShort(APP.length());
      b.writeBytes(APP.getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(nonce);
    });
    assertWire(hello, new Hello(APP, nonce));
    assertWire(frame((byte) 2, b -> b.writeBytes(nonce)), new Challenge(nonce));
    assertWire(frame((byte) 3, b -> b.writeBytes(nonce)), new Response(nonce));
    assertWire(frame((byte) 4, b -> b.writeBytes(nonce)), new Ok(nonce));
    assertWire(frame((byte) 5, b -> b.writeShort(2).writeBytes(new byte[] {'n', 'o'})),
        new Reject("no"));
    assertWire(frame((byte) 6, b -> b.writeInt(1000).writeShort(1).writeByte('x')),
        new Busy(1000, "x"));
  }

  /** {@code int32 length | type | payload}, written by hand. */
  private static ByteBuf frame(byte type, Consumer<ByteBuf> payload) {
    ByteBuf p = Unpooled.buffer();
    payload.accept(p);
    ByteBuf f = Unpooled.buffer().writeInt(1 + p.readableBytes()).writeByte(type).writeBytes(p);
    p.release();
    return f;
  }

  private static void assertWire(ByteBuf expected, HandshakeMessage message) {
    ByteBuf actual = message.toFrame(ByteBufAllocator.DEFAULT);
    try {
      assertEquals(ByteBufUtil.hexDump(expected), ByteBufUtil.hexDump(actual), message.toString());
    } finally {
      expected.release();
      actual.release();
    }
  }

  @Test
  void arraysAreCopiedInAndOut() {
    byte[] nonce = bytes(32, 0);
    Challenge challenge = new Challenge(nonce);
    nonce[0] = 99;
    assertNotEquals(99, challenge.serverNonce().toArray()[0]);
    challenge.serverNonce().toArray()[1] = 99;
    assertEquals(1, challenge.serverNonce().toArray()[1]);
    assertEquals(new Ok(bytes(32, 5)), new Ok(bytes(32, 5)));
    assertNotEquals(new Ok(bytes(32, 5)), new Response(bytes(32, 5)));
  }

  @Test
  void constructorsRefuseInvalidValues() {
    assertInvalid(() -> new Hello("", bytes(32, 0)), "names no application");
    assertInvalid(() -> new Hello(null, bytes(32, 0)), "names no application");
    assertInvalid(() -> new Hello("a".repeat(257), bytes(32, 0)), "257 bytes exceeds 256");
    assertInvalid(() -> new Hello(APP, bytes(31, 0)), "HELLO client nonce must be 32 bytes, got 31");
    assertInvalid(() -> new Hello(APP, (byte[]) null), "got none");
    assertInvalid(() -> new Challenge(bytes(33, 0)), "CHALLENGE server nonce must be 32 bytes");
    assertInvalid(() -> new Response(new byte[0]), "RESPONSE proof must be 32 bytes, got 0");
    assertInvalid(() -> new Ok(bytes(16, 0)), "OK proof must be 32 bytes, got 16");
    assertInvalid(() -> new Busy(-1, "x"), "retryAfterMillis must be >= 0, got -1");
    assertEquals("", new Reject(null).reason());
    assertEquals(HandshakeMessages.MAX_REASON_CHARS, new Reject("x".repeat(70_000)).reason().length());
    assertEquals(HandshakeMessages.MAX_REASON_CHARS,
        new Busy(1, "y".repeat(70_000)).reason().length());
  }

  private static void assertInvalid(Runnable construct, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construct::run);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void badFramesOfAnyTypeAreRefused() {
    assertMalformed(new byte[] {}, "empty frame");
    assertMalformed(new byte[] {0}, "frame type 0 is not a handshake message");
    assertMalformed(new byte[] {7}, "frame type 7 is not a handshake message");
    assertMalformed(new byte[] {64, 'h', 'i'}, "frame type 64 is not a handshake message");
  }

  @Test
  void badHellosAreRefused() {
    assertMalformed(body(1), "truncated HELLO frame");
    assertMalformed(body(1, b -> b.writeByte(1)), "truncated HELLO application id");
    assertMalformed(body(1, b -> b.writeByte(1).writeShort(40).writeBytes(bytes(10, 0))),
        "HELLO application id of 40 bytes is too long or truncated");
    assertMalformed(body(1, b -> b.writeByte(1).writeShort(300).writeBytes(bytes(300, 'a'))),
        "HELLO application id of 300 bytes is too long or truncated");
    assertMalformed(body(1, b -> b.writeByte(1).writeShort(2).writeByte(0xc3).writeByte(0x28)
        .writeBytes(bytes(32, 0))), "HELLO application id is not valid UTF-8");
    assertMalformed(body(1, b -> b.writeByte(1).writeShort(0).writeBytes(bytes(32, 0))),
        "invalid HELLO frame: HELLO names no application");
    assertMalformed(body(1, b -> appAndNonce(b.writeByte(1), 20)),
        "HELLO client nonce must be 32 bytes, got 20");
    assertMalformed(body(1, b -> appAndNonce(b.writeByte(1), 33)),
        "HELLO client nonce must be 32 bytes, got 33");
    HandshakeMessage.UnsupportedVersionException v = assertThrows(
        HandshakeMessage.UnsupportedVersionException.class,
        () -> decode(body(1, b -> appAndNonce(b.writeByte(3), 32))));
    assertEquals(3, v.version());
    assertEquals("unsupported handshake version 3", v.getMessage());
  }

  private static void appAndNonce(ByteBuf b, int nonceBytes) {
    b.writeShort(APP.length()).writeBytes(APP.getBytes(StandardCharsets.US_ASCII))
        .writeBytes(bytes(nonceBytes, 0));
  }

  @Test
  void badChallengesResponsesAndOksAreRefused() {
    for (byte type : new byte[] {2, 3, 4}) {
      String name = HandshakeMessages.name(type);
      assertMalformed(body(type), "must be 32 bytes, got 0");
      assertMalformed(body(type, b -> b.writeBytes(bytes(31, 0))), name + " ");
      assertMalformed(body(type, b -> b.writeBytes(bytes(31, 0))), "must be 32 bytes, got 31");
      assertMalformed(body(type, b -> b.writeBytes(bytes(40, 0))), "must be 32 bytes, got 40");
    }
  }

  @Test
  void badRejectsAreRefused() {
    assertMalformed(body(5), "truncated REJECT reason");
    assertMalformed(body(5, b -> b.writeByte(0)), "truncated REJECT reason");
    assertMalformed(body(5, b -> b.writeShort(10).writeBytes(bytes(3, 'a'))),
        "REJECT reason of 10 bytes is too long or truncated");
    assertMalformed(body(5, b -> b.writeShort(1).writeByte(0xff)), "REJECT reason is not valid UTF-8");
    assertMalformed(body(5, b -> b.writeShort(1).writeByte('a').writeByte(0)),
        "1 trailing bytes after REJECT");
  }

  @Test
  void badBusiesAreRefused() {
    assertMalformed(body(6), "truncated BUSY frame");
    assertMalformed(body(6, b -> b.writeShort(0)), "truncated BUSY frame");
    assertMalformed(body(6, b -> b.writeInt(100)), "truncated BUSY reason");
    assertMalformed(body(6, b -> b.writeInt(100).writeShort(5).writeByte('a')),
        "BUSY reason of 5 bytes is too long or truncated");
    assertMalformed(body(6, b -> b.writeInt(-1).writeShort(0)),
        "invalid BUSY frame: BUSY retryAfterMillis must be >= 0, got -1");
    assertMalformed(body(6, b -> b.writeInt(100).writeShort(0).writeInt(0)),
        "4 trailing bytes after BUSY");
  }

  private static byte[] body(int type) {
    return new byte[] {(byte) type};
  }

  private static byte[] body(int type, Consumer<ByteBuf> payload) {
    ByteBuf b = Unpooled.buffer().writeByte(type);
    payload.accept(b);
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    b.release();
    return out;
  }

  private static HandshakeMessage decode(byte[] body) {
    return HandshakeMessages.decode(Unpooled.wrappedBuffer(body));
  }

  private static void assertMalformed(byte[] body, String expected) {
    MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> decode(body));
    assertTrue(e.getMessage().contains(expected), () -> "'" + e.getMessage()
        + "' does not contain '" + expected + "'");
  }

  @Test
  void decodedNoncesAndProofsAreTheBytesSent() {
    byte[] nonce = bytes(32, 50);
    Challenge c = assertInstanceOf(Challenge.class, roundTrip(new Challenge(nonce)));
    assertArrayEquals(nonce, c.serverNonce().toArray());
  }
}
