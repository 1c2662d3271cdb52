package dev.tide.shuffle.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Frame layout shared by every Tide protocol: {@code int32 length | byte type | payload}, where
 * length counts the type byte and the payload. Type bytes 1-15 belong to the handshake, 16-63
 * to the shuffle protocol, 64-127 to the driver RPC.
 */
public final class Frames {
  // TODO(shuffle-service helper): implement; keep these signatures.
  private Frames() {}

  /** A new frame with the length prefix and type byte written; the caller appends the payload
   * and then calls {@link #finish}. */
  public static ByteBuf start(ByteBufAllocator alloc, byte type) {
    throw new UnsupportedOperationException();
  }

  /** Fills in the length prefix of a frame started with {@link #start}. */
  public static ByteBuf finish(ByteBuf frame) {
    throw new UnsupportedOperationException();
  }
}
