package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Frame layout shared by every Tide protocol: {@code int32 length | byte type | payload}, where
 * length counts the type byte and the payload. Type bytes 1-15 belong to the handshake, 16-63
 * to the shuffle protocol, 64-127 to the driver RPC.
 *
 * <pre>
 *   Frame buf = Frames.start(ctx.alloc(), MY_TYPE);   // [0 0 0 0][type]
 *   buf.writeLong(requestId);                          // payload
 *   ctx.writeAndFlush(Frames.finish(buf));             // [len][type][payload], len = 1 + payload
 * </pre>
 * Stateless and thread-safe.
 */
public final class Frames {
  /** Bytes of the length prefix. */
  public static final int LENGTH_BYTES = 4;
  /** Bytes of prefix plus type byte written by {@link #start}. */
  public static final int HEADER_BYTES = LENGTH_BYTES + 1;

  private Frames() {}

  /** A new frame with the length prefix and type byte written; the caller appends the payload
   * and then calls {@link #finish}. */
  public static ByteBuf start(ByteBufAllocator alloc, byte type) {
    ByteBuf buf = alloc.buffer();
    buf.writeInt(0);
    buf.writeByte(type);
    return buf;
  }

  /** Fills in the length prefix of a frame started with {@link #start}. */
  public static ByteBuf finish(ByteBuf frame) {
    int bodyLength = frame.readableBytes() - LENGTH_BYTES;
    if (bodyLength < 1) {
      throw new IllegalArgumentException("frame has no type byte; was it made by Frames.start?");
    }
    frame.setInt(frame.readerIndex(), bodyLength);
    return frame;
  }

  /**
   * The header of a frame whose payload follows separately (for example as file regions):
   * writes the length prefix for {@code 1 + headerPayload + trailingBytes} and the type byte.
   * The caller appends the rest of the in-memory payload and writes the trailing bytes after it.
   */
  public static ByteBuf startWithTrailing(ByteBufAllocator alloc, byte type, int headerPayload,
      long trailingBytes) {
    long body = 1L + headerPayload + trailingBytes;
    if (body > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("frame body of " + body + " bytes exceeds int32");
    }
    ByteBuf buf = alloc.buffer(HEADER_BYTES + headerPayload);
    buf.writeInt((int) body);
    buf.writeByte(type);
    return buf;
  }
}
