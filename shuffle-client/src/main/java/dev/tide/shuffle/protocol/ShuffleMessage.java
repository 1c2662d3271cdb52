package dev.tide.shuffle.protocol;

import dev.tide.network.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A message of the shuffle protocol: immutable, with an explicit type byte, every one naming the
 * request it belongs to. Encoded as the payload of a {@link Frames} frame.
 */
public sealed interface ShuffleMessage permits FetchRequest, FetchReply, ErrorReply,
    VerifyRequest, VerifyReply, MigrateRequest, MigrateReply, PushOpen, PushData, PushReply {
  byte type();

  /** The id of the request this message is or answers; -1 if it answers an unreadable frame. */
  long requestId();

  /** Bytes {@link #encodePayload} writes. */
  int encodedLength();

  /** Writes the payload (after the type byte). */
  void encodePayload(ByteBuf buf);

  /** A complete frame holding this message; the caller owns it. */
  default ByteBuf toFrame(ByteBufAllocator alloc) {
    ByteBuf buf = Frames.start(alloc, type());
    buf.ensureWritable(encodedLength());
    encodePayload(buf);
    return Frames.finish(buf);
  }
}
