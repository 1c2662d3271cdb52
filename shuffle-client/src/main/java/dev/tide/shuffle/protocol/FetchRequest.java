package dev.tide.shuffle.protocol;

import dev.tide.network.WireStrings;
import dev.tide.shuffle.BlockId;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Asks for the bytes of many blocks in one go. Payload:
 * <pre>
 *   int64 requestId | uint16 len | appId UTF-8 | int32 count |
 *   count x (int32 shuffleId | int32 mapId | int32 reduceStart | int32 reduceEnd)
 * </pre>
 * The appId must be the application the connection authenticated for.
 */
public record FetchRequest(long requestId, String appId, List<BlockId> blocks)
    implements ShuffleMessage {
  static final int MAX_APP_ID_BYTES = 256;

  public FetchRequest {
    if (appId == null || appId.isEmpty()) {
      throw new IllegalArgumentException("fetch request " + requestId + " names no application");
    }
    blocks = List.copyOf(blocks);
  }

  @Override
  public byte type() {
    return MessageTypes.FETCH_REQUEST;
  }

  @Override
  public int encodedLength() {
    return 8 + WireStrings.encodedLength(appId) + 4 + 16 * blocks.size();
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    WireStrings.write(buf, appId);
    ShuffleMessages.writeBlocks(buf, blocks);
  }

  static FetchRequest decode(ByteBuf buf) {
    long requestId = buf.readLong();
    String appId = WireStrings.read(buf, MAX_APP_ID_BYTES, "application id");
    List<BlockId> blocks = ShuffleMessages.readBlocks(buf);
    ShuffleMessages.requireFullyRead(buf, "FETCH_REQUEST");
    return new FetchRequest(requestId, appId, blocks);
  }
}
