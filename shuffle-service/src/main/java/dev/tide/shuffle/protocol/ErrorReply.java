package dev.tide.shuffle.protocol;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.transport.WireStrings;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A refused request. Payload:
 * <pre>
 *   int64 requestId | byte code | uint16 len | message UTF-8 | int32 count |
 *   count x (int32 shuffleId | int32 mapId | int32 reduceStart | int32 reduceEnd)
 * </pre>
 * {@code requestId} is -1 when the request could not be read. The blocks are those the error is
 * about (for NOT_FOUND: every requested block whose map output is missing); may be empty.
 */
public record ErrorReply(long requestId, ErrorCode code, String message, List<BlockId> blocks)
    implements ShuffleMessage {
  /** Messages are cut to this many characters on the wire. */
  public static final int MAX_MESSAGE_CHARS = 2000;

  public ErrorReply {
    message = message == null ? "" : message.length() > MAX_MESSAGE_CHARS
        ? message.substring(0, MAX_MESSAGE_CHARS) : message;
    blocks = List.copyOf(blocks);
  }

  public ErrorReply(long requestId, ErrorCode code, String message) {
    this(requestId, code, message, List.of());
  }

  @Override
  public byte type() {
    return MessageTypes.ERROR;
  }

  @Override
  public int encodedLength() {
    return 8 + 1 + WireStrings.encodedLength(message) + 4 + 16 * blocks.size();
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeByte(code.wire());
    WireStrings.write(buf, message);
    ShuffleMessages.writeBlocks(buf, blocks);
  }

  static ErrorReply decode(ByteBuf buf) {
    long requestId = buf.readLong();
    ErrorCode code = ErrorCode.fromWire(buf.readByte());
    String message = WireStrings.read(buf, 0xFFFF, "error message");
    List<BlockId> blocks = ShuffleMessages.readBlocks(buf);
    ShuffleMessages.requireFullyRead(buf, "ERROR");
    return new ErrorReply(requestId, code, message, blocks);
  }
}
