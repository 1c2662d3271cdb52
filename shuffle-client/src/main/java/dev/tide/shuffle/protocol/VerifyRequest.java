package dev.tide.shuffle.protocol;

import dev.tide.network.WireStrings;
import dev.tide.shuffle.BlockId;
import io.netty.buffer.ByteBuf;

/**
 * Asks the service to read one block from its disk again and compute its CRC32C now: the
 * reducer's way to learn why a fetched block failed its checksum. Payload:
 * <pre>
 *   int64 requestId | uint16 len | appId UTF-8 |
 *   int32 shuffleId | int32 mapId | int32 reduceStart | int32 reduceEnd
 * </pre>
 * The appId must be the application the connection authenticated for. Answered with a
 * {@link VerifyReply} or an {@link ErrorReply} (CORRUPT when the index or the data file's
 * length fails validation, NOT_FOUND, FORBIDDEN, BAD_REQUEST, BUSY).
 */
public record VerifyRequest(long requestId, String appId, BlockId block)
    implements ShuffleMessage {
  public VerifyRequest {
    if (appId == null || appId.isEmpty()) {
      throw new IllegalArgumentException("verify request " + requestId + " names no application");
    }
    if (block == null) {
      throw new IllegalArgumentException("verify request " + requestId + " names no block");
    }
  }

  @Override
  public byte type() {
    return MessageTypes.VERIFY_REQUEST;
  }

  @Override
  public int encodedLength() {
    return 8 + WireStrings.encodedLength(appId) + 16;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    WireStrings.write(buf, appId);
    buf.writeInt(block.shuffleId());
    buf.writeInt(block.mapId());
    buf.writeInt(block.reduceStart());
    buf.writeInt(block.reduceEnd());
  }

  static VerifyRequest decode(ByteBuf buf) {
    long requestId = buf.readLong();
    String appId = WireStrings.read(buf, FetchRequest.MAX_APP_ID_BYTES, "application id");
    BlockId block = new BlockId(buf.readInt(), buf.readInt(), buf.readInt(), buf.readInt());
    ShuffleMessages.requireFullyRead(buf, "VERIFY_REQUEST");
    return new VerifyRequest(requestId, appId, block);
  }
}
