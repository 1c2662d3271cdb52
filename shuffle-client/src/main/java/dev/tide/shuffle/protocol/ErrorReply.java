package dev.tide.shuffle.protocol;

import dev.tide.network.WireStrings;
import dev.tide.shuffle.BlockId;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A refused request. Payload:
 * <pre>
 *   int64 requestId | byte code | uint16 len | message UTF-8 | int32 count |
 *   count x (int32 shuffleId | int32 mapId | int32 reduceStart | int32 reduceEnd) |
 *   [int32 retryAfterMillis]      (present only when code is BUSY)
 * </pre>
 * {@code requestId} is -1 when the request could not be read. The blocks are those the error is
 * about (for NOT_FOUND: every requested block whose map output is missing); may be empty.
 * {@code retryAfterMillis} is how long a BUSY server asks the client to wait before retrying
 * (0 for other codes; a BUSY reply without the field reads as 0).
 */
public record ErrorReply(long requestId, ErrorCode code, String message, List<BlockId> blocks,
    int retryAfterMillis) implements ShuffleMessage {
  /** Messages are cut to this many characters on the wire. */
  public static final int MAX_MESSAGE_CHARS = 2000;

  public ErrorReply {
    message = message == null ? "" : message.length() > MAX_MESSAGE_CHARS
        ? message.substring(0, MAX_MESSAGE_CHARS) : message;
    blocks = List.copyOf(blocks);
    if (code != ErrorCode.BUSY || retryAfterMillis < 0) {
      retryAfterMillis = 0;
    }
  }

  public ErrorReply(long requestId, ErrorCode code, String message, List<BlockId> blocks) {
    this(requestId, code, message, blocks, 0);
  }

  public ErrorReply(long requestId, ErrorCode code, String message) {
    this(requestId, code, message, List.of(), 0);
  }

  /** A BUSY reply asking the client to retry after {@code retryAfterMillis}. */
  public static ErrorReply busy(long requestId, String message, int retryAfterMillis) {
    return new ErrorReply(requestId, ErrorCode.BUSY, message, List.of(), retryAfterMillis);
  }

  @Override
  public byte type() {
    return MessageTypes.ERROR;
  }

  @Override
  public int encodedLength() {
    return 8 + 1 + WireStrings.encodedLength(message) + 4 + 16 * blocks.size()
        + (code == ErrorCode.BUSY ? 4 : 0);
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeByte(code.wire());
    WireStrings.write(buf, message);
    ShuffleMessages.writeBlocks(buf, blocks);
    if (code == ErrorCode.BUSY) {
      buf.writeInt(retryAfterMillis);
    }
  }

  static ErrorReply decode(ByteBuf buf) {
    long requestId = buf.readLong();
    ErrorCode code = ErrorCode.fromWire(buf.readByte());
    String message = WireStrings.read(buf, 0xFFFF, "error message");
    List<BlockId> blocks = ShuffleMessages.readBlocks(buf);
    int retryAfter = code == ErrorCode.BUSY && buf.readableBytes() == 4 ? buf.readInt() : 0;
    ShuffleMessages.requireFullyRead(buf, "ERROR");
    return new ErrorReply(requestId, code, message, blocks, retryAfter);
  }
}
