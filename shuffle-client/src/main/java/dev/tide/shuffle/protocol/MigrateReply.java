package dev.tide.shuffle.protocol;

import dev.tide.network.WireStrings;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The answer to a {@link MigrateRequest}: the map outputs the target service confirmed (it
 * verified and committed them; they can be fetched there now), the data bytes they hold, and
 * why the others were not copied. Payload:
 * <pre>
 *   int64 requestId | int64 bytesCopied | int32 count | count x (int32 shuffleId | int32 mapId) |
 *   uint16 len | failures UTF-8
 * </pre>
 * {@code failures} is empty when every requested output was copied; it is cut to
 * {@link ErrorReply#MAX_MESSAGE_CHARS} characters.
 */
public record MigrateReply(long requestId, long bytesCopied, List<MapOutputId> copied,
    String failures) implements ShuffleMessage {
  public MigrateReply {
    if (bytesCopied < 0) {
      throw new IllegalArgumentException("negative bytes copied " + bytesCopied);
    }
    copied = List.copyOf(copied);
    failures = failures == null ? "" : failures.length() > ErrorReply.MAX_MESSAGE_CHARS
        ? failures.substring(0, ErrorReply.MAX_MESSAGE_CHARS) : failures;
  }

  @Override
  public byte type() {
    return MessageTypes.MIGRATE_REPLY;
  }

  @Override
  public int encodedLength() {
    return 8 + 8 + 4 + 8 * copied.size() + WireStrings.encodedLength(failures);
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeLong(bytesCopied);
    ShuffleMessages.writeMaps(buf, copied);
    WireStrings.write(buf, failures);
  }

  static MigrateReply decode(ByteBuf buf) {
    long requestId = buf.readLong();
    long bytes = buf.readLong();
    List<MapOutputId> copied = ShuffleMessages.readMaps(buf);
    String failures = WireStrings.read(buf, 0xFFFF, "failures");
    ShuffleMessages.requireFullyRead(buf, "MIGRATE_REPLY");
    return new MigrateReply(requestId, bytes, copied, failures);
  }
}
