package dev.tide.shuffle.protocol;

import dev.tide.network.MalformedFrameException;
import dev.tide.shuffle.BlockId;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a frame body (type byte + payload) into a {@link ShuffleMessage}. For a FETCH_REPLY
 * only the header is decoded and the body is left positioned at the block data. Does not
 * release the body. Stateless and thread-safe.
 */
public final class ShuffleMessages {
  private ShuffleMessages() {}

  /**
   * @throws MalformedFrameException naming what is wrong, for unknown types too (the type as
   *     on the wire, 0-255); for a request whose id could be read, carrying that id
   */
  public static ShuffleMessage decode(ByteBuf body) {
    if (!body.isReadable()) {
      throw new MalformedFrameException("empty frame");
    }
    byte type = body.readByte();
    int wireType = Byte.toUnsignedInt(type);
    long requestId = requestIdOf(type, body);
    try {
      return switch (type) {
        case MessageTypes.FETCH_REQUEST -> FetchRequest.decode(body);
        case MessageTypes.FETCH_REPLY -> FetchReply.decode(body);
        case MessageTypes.ERROR -> ErrorReply.decode(body);
        case MessageTypes.VERIFY_REQUEST -> VerifyRequest.decode(body);
        case MessageTypes.VERIFY_REPLY -> VerifyReply.decode(body);
        case MessageTypes.MIGRATE_REQUEST -> MigrateRequest.decode(body);
        case MessageTypes.MIGRATE_REPLY -> MigrateReply.decode(body);
        case MessageTypes.PUSH_OPEN -> PushOpen.decode(body);
        case MessageTypes.PUSH_DATA -> PushData.decode(body);
        case MessageTypes.PUSH_REPLY -> PushReply.decode(body);
        default -> throw new MalformedFrameException("unknown shuffle message type " + wireType);
      };
    } catch (MalformedFrameException e) {
      throw new MalformedFrameException(e.getMessage(), requestId);
    } catch (IndexOutOfBoundsException e) {
      throw new MalformedFrameException("truncated message of type " + wireType, requestId);
    } catch (IllegalArgumentException e) {
      throw new MalformedFrameException("invalid message of type " + wireType + ": "
          + e.getMessage(), requestId);
    }
  }

  /**
   * The request id a request's body (FETCH_REQUEST, VERIFY_REQUEST, MIGRATE_REQUEST, PUSH_OPEN,
   * PUSH_DATA; after its type byte) starts with, without moving the reader index; -1 for other
   * types or a body too short to hold one.
   */
  private static long requestIdOf(byte type, ByteBuf body) {
    boolean request = isRequest(type);
    return request && body.readableBytes() >= Long.BYTES ? body.getLong(body.readerIndex()) : -1;
  }

  /** Whether {@code type} is sent by clients (the server answers every other type as malformed). */
  public static boolean isRequest(byte type) {
    return type == MessageTypes.FETCH_REQUEST || type == MessageTypes.VERIFY_REQUEST
        || type == MessageTypes.MIGRATE_REQUEST || type == MessageTypes.PUSH_OPEN
        || type == MessageTypes.PUSH_DATA;
  }

  static void writeMaps(ByteBuf buf, List<MapOutputId> maps) {
    buf.writeInt(maps.size());
    for (MapOutputId m : maps) {
      buf.writeInt(m.shuffleId());
      buf.writeInt(m.mapId());
    }
  }

  /** Reads {@code int32 count | count x 8 bytes}; checks count against the readable bytes. */
  static List<MapOutputId> readMaps(ByteBuf buf) {
    int count = buf.readInt();
    if (count < 0 || (long) count * 8 > buf.readableBytes()) {
      throw new MalformedFrameException("map output count " + count + " does not match "
          + buf.readableBytes() + " remaining bytes");
    }
    List<MapOutputId> maps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      maps.add(new MapOutputId(buf.readInt(), buf.readInt()));
    }
    return List.copyOf(maps);
  }

  static void writeBlocks(ByteBuf buf, List<BlockId> blocks) {
    buf.writeInt(blocks.size());
    for (BlockId b : blocks) {
      buf.writeInt(b.shuffleId());
      buf.writeInt(b.mapId());
      buf.writeInt(b.reduceStart());
      buf.writeInt(b.reduceEnd());
    }
  }

  /** Reads {@code int32 count | count x 16 bytes}; checks count against the readable bytes. */
  static List<BlockId> readBlocks(ByteBuf buf) {
    int count = buf.readInt();
    if (count < 0 || (long) count * 16 > buf.readableBytes()) {
      throw new MalformedFrameException("block count " + count + " does not match "
          + buf.readableBytes() + " remaining bytes");
    }
    List<BlockId> blocks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      blocks.add(new BlockId(buf.readInt(), buf.readInt(), buf.readInt(), buf.readInt()));
    }
    return List.copyOf(blocks);
  }

  static void requireFullyRead(ByteBuf buf, String what) {
    if (buf.isReadable()) {
      throw new MalformedFrameException(buf.readableBytes() + " trailing bytes after " + what);
    }
  }
}
