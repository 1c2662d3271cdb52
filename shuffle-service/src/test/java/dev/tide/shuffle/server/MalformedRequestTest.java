package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.MessageTypes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * How the server answers a frame it cannot read, as a peer sees it: BAD_REQUEST carrying the
 * request's id when the id could be read (so the client can tell which request failed), and a
 * type byte named as on the wire (0-255).
 */
class MalformedRequestTest {
  private final ServerPipelineHarness h = new ServerPipelineHarness();

  private static byte[] frame(int type, ByteBuf payload) {
    ByteBuf frame = Unpooled.buffer();
    frame.writeInt(1 + payload.readableBytes()).writeByte(type).writeBytes(payload);
    byte[] bytes = new byte[frame.readableBytes()];
    frame.readBytes(bytes);
    return bytes;
  }

  private ErrorReply answerTo(byte[] frame) {
    EmbeddedChannel server = h.newConnection();
    try {
      h.authenticate(server);
      h.feed(server, frame);
      return assertInstanceOf(ErrorReply.class, h.drainReplies(server).get(0));
    } finally {
      h.close(server);
    }
  }

  @Test
  void aTruncatedFetchRequestIsAnsweredWithItsId() {
    ByteBuf payload = Unpooled.buffer().writeLong(42).writeShort(30)
        .writeBytes("application_".getBytes(StandardCharsets.UTF_8));
    ErrorReply error = answerTo(frame(MessageTypes.FETCH_REQUEST, payload));
    assertEquals(ErrorCode.BAD_REQUEST, error.code());
    assertEquals(42, error.requestId(), error.message());
  }

  @Test
  void anInvalidVerifyRequestIsAnsweredWithItsId() {
    ByteBuf payload = Unpooled.buffer().writeLong(7)
        .writeShort(ServerPipelineHarness.APP.length())
        .writeBytes(ServerPipelineHarness.APP.getBytes(StandardCharsets.UTF_8))
        .writeInt(0).writeInt(0).writeInt(5).writeInt(2).writeByte(0);
    ErrorReply error = answerTo(frame(MessageTypes.VERIFY_REQUEST, payload));
    assertEquals(ErrorCode.BAD_REQUEST, error.code());
    assertEquals(7, error.requestId(), error.message());
  }

  @Test
  void aRequestTooShortForItsIdIsAnsweredWithMinusOne() {
    ErrorReply error = answerTo(frame(MessageTypes.FETCH_REQUEST,
        Unpooled.buffer().writeInt(42)));
    assertEquals(-1, error.requestId(), error.message());
  }

  @Test
  void aTypeByteAbove127IsNamedAsOnTheWire() {
    ErrorReply error = answerTo(frame(200, Unpooled.buffer().writeLong(5)));
    assertEquals(ErrorCode.BAD_REQUEST, error.code());
    assertEquals(-1, error.requestId(), error.message());
    assertTrue(error.message().contains("type 200"), error.message());
  }
}
