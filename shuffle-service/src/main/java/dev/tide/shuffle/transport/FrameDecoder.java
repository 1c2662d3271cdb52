package dev.tide.shuffle.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits the byte stream into frame bodies. Wire bytes:
 *
 * <pre>
 *   +--------+------+---------------------+
 *   | int32  | byte | length - 1 bytes    |
 *   | length | type | payload             |
 *   +--------+------+---------------------+
 * </pre>
 *
 * Emits each body (type byte + payload) as a retained slice of the input, without copying.
 * A length above {@code maxFrameBytes} is never buffered: its bytes are skipped as they arrive and
 * a {@link TooLongFrameException} is fired once, after which decoding resumes at the next frame.
 * A length below 1 cannot be resynchronized: a {@link CorruptedFrameException} is fired and all
 * further input is discarded (the handler that sees the exception closes the channel).
 * One instance per channel; runs on its event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxFrameBytes;
  private long bytesToDiscard;
  private boolean corrupted;

  public FrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be >= 1, got " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  /** The largest frame body this decoder accepts. */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (corrupted) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (bytesToDiscard > 0) {
      int skip = (int) Math.min(bytesToDiscard, in.readableBytes());
      in.skipBytes(skip);
      bytesToDiscard -= skip;
      if (bytesToDiscard > 0) {
        return;
      }
    }
    if (in.readableBytes() < Frames.LENGTH_BYTES) {
      return;
    }
    int length = in.getInt(in.readerIndex());
    if (length < 1) {
      corrupted = true;
      in.skipBytes(in.readableBytes());
      throw new CorruptedFrameException("frame length " + length + " < 1 from "
          + ctx.channel().remoteAddress());
    }
    if (length > maxFrameBytes) {
      in.skipBytes(Frames.LENGTH_BYTES);
      bytesToDiscard = length;
      int skip = (int) Math.min(bytesToDiscard, in.readableBytes());
      in.skipBytes(skip);
      bytesToDiscard -= skip;
      throw new TooLongFrameException("frame of " + length + " bytes exceeds the limit of "
          + maxFrameBytes + " from " + ctx.channel().remoteAddress());
    }
    if (in.readableBytes() < Frames.LENGTH_BYTES + length) {
      return;
    }
    in.skipBytes(Frames.LENGTH_BYTES);
    out.add(in.readRetainedSlice(length));
  }
}
