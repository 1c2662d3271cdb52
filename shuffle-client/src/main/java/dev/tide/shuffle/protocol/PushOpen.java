package dev.tide.shuffle.protocol;

import dev.tide.network.MalformedFrameException;
import dev.tide.network.WireStrings;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Starts a push: one service sends another one map output of the connection's application
 * (what a {@link MigrateRequest} makes a service do). Payload:
 * <pre>
 *   int64 requestId | uint16 len | appId UTF-8 | int32 shuffleId | int32 mapId |
 *   int64 dataLength | int32 indexLength | index bytes
 * </pre>
 * {@code index} is the map output's index file as written by its map task ({@code
 * MapOutputIndex}: offsets, per-segment CRC32Cs, its own CRC32C); {@code dataLength} must equal
 * its last offset. The data follows in {@link PushData} frames with the same request id. The
 * receiver answers a {@link PushReply} once the output is verified and committed, or an
 * {@link ErrorReply}.
 */
public record PushOpen(long requestId, String appId, int shuffleId, int mapId, long dataLength,
    byte[] index) implements ShuffleMessage {
  public PushOpen {
    if (appId == null || appId.isEmpty()) {
      throw new IllegalArgumentException("push " + requestId + " names no application");
    }
    if (shuffleId < 0 || mapId < 0) {
      throw new IllegalArgumentException("push " + requestId + ": invalid map output "
          + shuffleId + "/" + mapId);
    }
    if (dataLength < 0) {
      throw new IllegalArgumentException("push " + requestId + ": negative data length "
          + dataLength);
    }
    index = index.clone();
  }

  @Override
  public byte[] index() {
    return index.clone();
  }

  @Override
  public byte type() {
    return MessageTypes.PUSH_OPEN;
  }

  @Override
  public int encodedLength() {
    return 8 + WireStrings.encodedLength(appId) + 4 + 4 + 8 + 4 + index.length;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    WireStrings.write(buf, appId);
    buf.writeInt(shuffleId);
    buf.writeInt(mapId);
    buf.writeLong(dataLength);
    buf.writeInt(index.length);
    buf.writeBytes(index);
  }

  static PushOpen decode(ByteBuf buf) {
    long requestId = buf.readLong();
    String appId = WireStrings.read(buf, FetchRequest.MAX_APP_ID_BYTES, "application id");
    int shuffleId = buf.readInt();
    int mapId = buf.readInt();
    long dataLength = buf.readLong();
    int indexLength = buf.readInt();
    if (indexLength < 0 || indexLength > buf.readableBytes()) {
      throw new MalformedFrameException("index length " + indexLength + " does not match "
          + buf.readableBytes() + " remaining bytes");
    }
    byte[] index = new byte[indexLength];
    buf.readBytes(index);
    ShuffleMessages.requireFullyRead(buf, "PUSH_OPEN");
    return new PushOpen(requestId, appId, shuffleId, mapId, dataLength, index);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PushOpen p && p.requestId == requestId && p.appId.equals(appId)
        && p.shuffleId == shuffleId && p.mapId == mapId && p.dataLength == dataLength
        && Arrays.equals(p.index, index);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(requestId) * 31 + Arrays.hashCode(index);
  }

  @Override
  public String toString() {
    return "PushOpen[" + requestId + ", " + appId + ", " + shuffleId + "/" + mapId + ", "
        + dataLength + " bytes, index of " + index.length + " bytes]";
  }
}
