package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
 * The limit can change between frames ({@link #maxFrameBytes(int)}), and a receiver that cannot
 * keep up can {@link #pause} and {@link #resume} the splitting (the shuffle server does so for a
 * peer that does not read its replies). One instance per channel; runs on its event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private int maxFrameBytes;
  private long bytesToDiscard;
  private boolean corrupted;
  private boolean paused;
  private ChannelHandlerContext ctx;

  public FrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be >= 1, got " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
    // Compact after every read, not every 16th (Netty's default): otherwise a peer that keeps
    // sending, each read ending mid-frame, grows the buffer to ~16 reads (1 MiB) per connection.
    setDiscardAfterReads(1);
  }

  /** The largest frame body this decoder accepts. */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /**
   * Changes the limit for the frames still to come (the server raises it from the handshake's
   * size to the protocol's once the peer is authenticated). Call on the channel's event loop.
   */
  public void maxFrameBytes(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be >= 1, got " + max);
    }
    this.maxFrameBytes = max;
  }

  /**
   * Takes the bytes received but not yet split into frames (those that came in the same read as
   * the handshake's last frame), or null if there are none. Used when the connection switches to
   * encryption: those bytes are records. Call on the event loop.
   */
  ByteBuf takeBuffered() {
    ByteBuf buffered = internalBuffer();
    if (!buffered.isReadable()) {
      return null;
    }
    return buffered.readBytes(buffered.readableBytes());
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Stops splitting frames, at once (also between two frames of one read), and reading from the
   * socket ({@code autoRead} off): at most the bytes of the read under way wait here.
   * Call on the event loop.
   */
  public void pause() {
    paused = true;
    ctx.channel().config().setAutoRead(false);
  }

  /**
   * Splits frames again, first those buffered while paused (in a task on the event loop, never
   * inside the caller's own frame handling), and reads from the socket again only once no
   * complete frame is left here and nobody paused again meanwhile, so the buffer never grows
   * faster than frames are handled. Call on the event loop.
   */
  public void resume() {
    if (!paused) {
      return;
    }
    paused = false;
    ctx.executor().execute(() -> {
      if (paused || !ctx.channel().isActive()) {
        return;
      }
      try {
        channelRead(ctx, Unpooled.EMPTY_BUFFER);
        channelReadComplete(ctx);
      } catch (Exception e) {
        ctx.fireExceptionCaught(e);
      }
      if (!paused) {
        ctx.channel().config().setAutoRead(true);
      }
    });
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (paused) {
      ctx.fireChannelReadComplete(); // and no read() for more input, as the parent would do
      return;
    }
    super.channelReadComplete(ctx);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (paused) {
      return;
    }
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
