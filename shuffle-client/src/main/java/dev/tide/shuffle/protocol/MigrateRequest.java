package dev.tide.shuffle.protocol;

import dev.tide.network.WireStrings;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Asks a service (typically on a node that is being decommissioned) to copy map outputs of the
 * connection's application to the service at {@code targetHost:targetPort}, each with
 * {@link PushOpen}/{@link PushData}, and to answer once each was confirmed or given up. Payload:
 * <pre>
 *   int64 requestId | uint16 len | appId UTF-8 | uint16 len | targetHost UTF-8 |
 *   int32 targetPort | int64 timeoutMillis | int32 count | count x (int32 shuffleId | int32 mapId)
 * </pre>
 * {@code targetHost} is at most 255 bytes, {@code targetPort} 1-65535, {@code timeoutMillis}
 * {@code >= 1}: the service starts no copy after that time and answers with what it copied.
 * Answered with a {@link MigrateReply} or an {@link ErrorReply}.
 */
public record MigrateRequest(long requestId, String appId, String targetHost, int targetPort,
    long timeoutMillis, List<MapOutputId> maps) implements ShuffleMessage {
  /** Longest host name (DNS limit). */
  public static final int MAX_HOST_BYTES = 255;

  public MigrateRequest {
    if (appId == null || appId.isEmpty()) {
      throw new IllegalArgumentException("migrate request " + requestId + " names no application");
    }
    if (targetHost == null || targetHost.isEmpty()) {
      throw new IllegalArgumentException("migrate request " + requestId + " names no target host");
    }
    if (targetPort < 1 || targetPort > 65535) {
      throw new IllegalArgumentException("migrate request " + requestId + ": target port "
          + targetPort + " is not 1-65535");
    }
    if (timeoutMillis < 1) {
      throw new IllegalArgumentException("migrate request " + requestId + ": timeout "
          + timeoutMillis + " ms is not positive");
    }
    maps = List.copyOf(maps);
  }

  @Override
  public byte type() {
    return MessageTypes.MIGRATE_REQUEST;
  }

  @Override
  public int encodedLength() {
    return 8 + WireStrings.encodedLength(appId) + WireStrings.encodedLength(targetHost) + 4 + 8
        + 4 + 8 * maps.size();
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    WireStrings.write(buf, appId);
    WireStrings.write(buf, targetHost);
    buf.writeInt(targetPort);
    buf.writeLong(timeoutMillis);
    ShuffleMessages.writeMaps(buf, maps);
  }

  static MigrateRequest decode(ByteBuf buf) {
    long requestId = buf.readLong();
    String appId = WireStrings.read(buf, FetchRequest.MAX_APP_ID_BYTES, "application id");
    String host = WireStrings.read(buf, MAX_HOST_BYTES, "target host");
    int port = buf.readInt();
    long timeout = buf.readLong();
    List<MapOutputId> maps = ShuffleMessages.readMaps(buf);
    ShuffleMessages.requireFullyRead(buf, "MIGRATE_REQUEST");
    return new MigrateRequest(requestId, appId, host, port, timeout, maps);
  }
}
