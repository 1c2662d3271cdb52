package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client and server handshake handlers exchanging the message records over
 * {@link EmbeddedChannel}s: the bytes one writes are fed to the other.
 */
class HandshakeHandlersTest {
  private static final String APP = "application_1700000000000_0001";
  private static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.UTF_8);

  private static EmbeddedChannel server() {
    EmbeddedChannel ch = new EmbeddedChannel();
    SecureChannels.initServer(ch, Map.of(APP, SECRET)::get, 1 << 16, Duration.ofSeconds(10),
        new ChannelInboundHandlerAdapter());
    return ch;
  }

  /** Moves every frame written by {@code from} into {@code to}; returns how many. */
  private static int pump(EmbeddedChannel from, EmbeddedChannel to) {
    int n = 0;
    for (ByteBuf out; (out = from.readOutbound()) != null; n++) {
      to.writeInbound(out);
    }
    return n;
  }

  /** The one handshake message {@code ch} wrote; fails if none or more. */
  private static HandshakeMessage written(EmbeddedChannel ch) {
    ByteBuf frame = ch.readOutbound();
    try {
      frame.skipBytes(Frames.LENGTH_BYTES);
      return HandshakeMessages.decode(frame);
    } finally {
      frame.release();
      assertNull(ch.readOutbound());
    }
  }

  @Test
  void clientAndServerCompleteTheHandshake() {
    EmbeddedChannel server = server();
    EmbeddedChannel client = new EmbeddedChannel();
    Future<Void> done = SecureChannels.initClient(client, APP, SECRET, 1 << 16,
        new ChannelInboundHandlerAdapter());
    assertEquals(1, pump(client, server));    // HELLO
    assertEquals(1, pump(server, client));    // CHALLENGE
    assertEquals(1, pump(client, server));    // RESPONSE
    assertEquals(1, pump(server, client));    // OK
    assertTrue(done.isSuccess(), () -> String.valueOf(done.cause()));
    assertEquals(APP, server.attr(SecureChannels.APP_ID).get());
    assertNull(server.pipeline().get("tide-handshake"));
    assertNull(client.pipeline().get("tide-handshake"));
    server.finishAndReleaseAll();
    client.finishAndReleaseAll();
  }

  @Test
  void helloOfAnotherVersionIsToldWhy() {
    EmbeddedChannel server = server();
    ByteBuf hello = Unpooled.buffer().writeInt(1 + 1 + 2 + APP.length() + 32).writeByte(1)
        .writeByte(3).writeShort(APP.length()).writeBytes(APP.getBytes(StandardCharsets.US_ASCII))
        .writeBytes(new byte[32]);
    server.writeInbound(hello);
    assertEquals(new HandshakeMessage.Reject("unsupported handshake version 3"), written(server));
    assertFalse(server.isOpen());
    server.finishAndReleaseAll();
  }

  @Test
  void truncatedHelloAndUnexpectedMessagesAreRefusedWithoutDetail() {
    EmbeddedChannel truncated = server();
    truncated.writeInbound(Unpooled.buffer().writeInt(3).writeByte(1).writeByte(1).writeByte(0));
    assertEquals(new HandshakeMessage.Reject(ServerHandshakeHandler.GENERIC_REFUSAL),
        written(truncated));
    assertFalse(truncated.isOpen());
    truncated.finishAndReleaseAll();

    EmbeddedChannel early = server();
    early.writeInbound(new HandshakeMessage.Response(new byte[32]).toFrame(early.alloc()));
    assertEquals(new HandshakeMessage.Reject(ServerHandshakeHandler.GENERIC_REFUSAL),
        written(early));
    early.finishAndReleaseAll();
  }

  @Test
  void clientReportsTruncatedChallengeAsProtocolError() {
    EmbeddedChannel client = new EmbeddedChannel();
    Future<Void> done = SecureChannels.initClient(client, APP, SECRET, 1 << 16);
    assertInstanceOf(HandshakeMessage.Hello.class, written(client));
    client.writeInbound(Unpooled.buffer().writeInt(11).writeByte(2).writeBytes(new byte[10]));
    HandshakeException e = assertInstanceOf(HandshakeException.class, done.cause());
    assertEquals(HandshakeException.Kind.PROTOCOL, e.kind());
    assertTrue(e.getMessage().contains("CHALLENGE server nonce must be 32 bytes, got 10"),
        e.getMessage());
    assertFalse(client.isOpen());
    client.finishAndReleaseAll();
  }

  @Test
  void clientReportsBusyWithTheRetryAfter() {
    EmbeddedChannel client = new EmbeddedChannel();
    Future<Void> done = SecureChannels.initClient(client, APP, SECRET, 1 << 16);
    written(client);
    client.writeInbound(new HandshakeMessage.Busy(1500, "at the connection limit")
        .toFrame(client.alloc()));
    HandshakeException e = assertInstanceOf(HandshakeException.class, done.cause());
    assertEquals(HandshakeException.Kind.BUSY, e.kind());
    assertEquals(1500, e.retryAfterMillis());
    assertTrue(e.getMessage().contains("at the connection limit"), e.getMessage());
    client.finishAndReleaseAll();
  }

  @Test
  void clientRefusesAnOkThatDoesNotProveTheSecret() {
    EmbeddedChannel client = new EmbeddedChannel();
    Future<Void> done = SecureChannels.initClient(client, APP, SECRET, 1 << 16);
    written(client);
    client.writeInbound(new HandshakeMessage.Challenge(new byte[32]).toFrame(client.alloc()));
    assertInstanceOf(HandshakeMessage.Response.class, written(client));
    client.writeInbound(new HandshakeMessage.Ok(new byte[32]).toFrame(client.alloc()));
    HandshakeException e = assertInstanceOf(HandshakeException.class, done.cause());
    assertTrue(e.rejected());
    assertTrue(e.getMessage().contains("could not prove"), e.getMessage());
    client.finishAndReleaseAll();
  }
}
