package dev.tide.shuffle.client;

import dev.tide.network.Frames;
import dev.tide.network.MalformedFrameException;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.MessageTypes;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;

/**
 * The client's frame decoder once the handshake is done: it reads the same frames as
 * {@link dev.tide.network.FrameDecoder} ({@code int32 length | byte type | payload}),
 * but passes the block data of a FETCH_REPLY on as it arrives, piece by piece, as slices of the
 * socket's read buffers, instead of first gathering the whole reply (up to the maximum reply
 * size) in one buffer: no megabyte-sized buffers that grow by re-copying, and the
 * {@link ReplySink} decides whether to copy at all.
 *
 * <p>Emits, for each FETCH_REPLY, a {@link ReplyStart}, then a {@link ReplyPiece} per piece of
 * each non-empty block (its buffer is valid only during the call: the next handler must not keep
 * or release it), then a {@link ReplyEnd}; and the body (type byte + payload) of any other frame
 * as a {@code ByteBuf} the next handler owns. Frames above
 * {@code maxFrameBytes}, lengths below 1 and replies whose header does not match their length
 * fire an exception (the handler closes the connection; replies are not resynchronized on the
 * client). One instance per channel; runs on its event loop.
 */
final class ReplyStreamDecoder extends ChannelInboundHandlerAdapter {
  /** A FETCH_REPLY's header has arrived; its data follows. */
  record ReplyStart(FetchReply header) {}

  /** Bytes of block {@code block} of the current reply; {@code data} lives only for the call. */
  record ReplyPiece(int block, ByteBuf data) {}

  /** The current reply is complete. */
  record ReplyEnd(long requestId) {}

  /** requestId (int64) and block count (int32) of a FETCH_REPLY. */
  private static final int REPLY_FIXED_BYTES = 12;

  private enum Phase { FRAME_HEADER, REPLY_HEADER, REPLY_DATA, OTHER_BODY, FAILED }

  private final int maxFrameBytes;
  private Phase phase = Phase.FRAME_HEADER;
  /** Small bytes gathered across reads: the frame header, a reply's header, another body. */
  private ByteBuf gathered;
  private int frameLength;
  private int needed;
  private long requestId;
  private long[] blockLengths;
  private long[] blockChecksums;
  private int block;
  private long blockLeft;

  ReplyStreamDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    gathered = ctx.alloc().heapBuffer(64);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    gathered.release();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      while (in.isReadable() && phase != Phase.FAILED) {
        switch (phase) {
          case FRAME_HEADER -> frameHeader(ctx, in);
          case REPLY_HEADER -> replyHeader(ctx, in);
          case REPLY_DATA -> replyData(ctx, in);
          case OTHER_BODY -> otherBody(ctx, in);
          default -> throw new IllegalStateException(phase.toString());
        }
      }
      if (phase == Phase.FAILED) {
        in.skipBytes(in.readableBytes());
      }
    } finally {
      in.release();
    }
  }

  /** Moves up to {@code needed} bytes into {@link #gathered}; true once all have arrived. */
  private boolean gather(ByteBuf in) {
    int n = Math.min(needed - gathered.readableBytes(), in.readableBytes());
    gathered.writeBytes(in, n);
    return gathered.readableBytes() == needed;
  }

  private void frameHeader(ChannelHandlerContext ctx, ByteBuf in) {
    needed = Frames.HEADER_BYTES;
    if (!gather(in)) {
      return;
    }
    frameLength = gathered.readInt();
    byte type = gathered.readByte();
    gathered.clear();
    if (frameLength < 1) {
      fail(ctx, new CorruptedFrameException("frame length " + frameLength + " < 1 from "
          + ctx.channel().remoteAddress()));
      return;
    }
    if (frameLength > maxFrameBytes) {
      fail(ctx, new TooLongFrameException("reply frame of " + frameLength
          + " bytes exceeds the limit of " + maxFrameBytes + " from "
          + ctx.channel().remoteAddress()));
      return;
    }
    if (type == MessageTypes.FETCH_REPLY) {
      phase = Phase.REPLY_HEADER;
      needed = REPLY_FIXED_BYTES;
      blockLengths = null;
    } else {
      phase = Phase.OTHER_BODY;
      gathered.writeByte(type);
      needed = frameLength;
    }
  }

  private void replyHeader(ChannelHandlerContext ctx, ByteBuf in) {
    if (!gather(in)) {
      return;
    }
    if (blockLengths == null) {
      requestId = gathered.getLong(0);
      int count = gathered.getInt(8);
      long headerBytes = 1L + REPLY_FIXED_BYTES + 16L * count;
      if (count < 0 || headerBytes > frameLength) {
        fail(ctx, new MalformedFrameException("reply " + requestId + ": block count " + count
            + " does not fit its frame of " + frameLength + " bytes"));
        return;
      }
      blockLengths = new long[count];
      blockChecksums = new long[count];
      needed = (int) headerBytes - 1;
      if (!gather(in)) {
        return;
      }
    }
    gathered.skipBytes(REPLY_FIXED_BYTES);
    long dataBytes = 0;
    for (int i = 0; i < blockLengths.length; i++) {
      blockLengths[i] = gathered.readLong();
      blockChecksums[i] = gathered.readLong();
      if (blockChecksums[i] < FetchReply.NO_CHECKSUM || blockChecksums[i] > 0xffffffffL) {
        fail(ctx, new MalformedFrameException("reply " + requestId + ": block " + i
            + " has the checksum " + blockChecksums[i] + ", neither a CRC32C nor -1"));
        return;
      }
      if (blockLengths[i] < 0) {
        fail(ctx, new MalformedFrameException("reply " + requestId + ": block " + i
            + " has the negative length " + blockLengths[i]));
        return;
      }
      dataBytes += blockLengths[i];
    }
    gathered.clear();
    if (dataBytes != frameLength - 1L - needed) {
      fail(ctx, new MalformedFrameException("reply " + requestId + " announces " + dataBytes
          + " bytes of data but its frame carries " + (frameLength - 1L - needed)));
      return;
    }
    block = 0;
    blockLeft = blockLengths.length == 0 ? 0 : blockLengths[0];
    phase = Phase.REPLY_DATA;
    ctx.fireChannelRead(new ReplyStart(new FetchReply(requestId, blockLengths,
        blockChecksums)));
    finishReplyIfDone(ctx);
  }

  private void replyData(ChannelHandlerContext ctx, ByteBuf in) {
    int n = (int) Math.min(blockLeft, in.readableBytes());
    ctx.fireChannelRead(new ReplyPiece(block, in.slice(in.readerIndex(), n)));
    in.skipBytes(n);
    blockLeft -= n;
    finishReplyIfDone(ctx);
  }

  /** Moves to the next block that still wants bytes; ends the reply when none does. */
  private void finishReplyIfDone(ChannelHandlerContext ctx) {
    while (blockLeft == 0 && block < blockLengths.length) {
      block++;
      blockLeft = block < blockLengths.length ? blockLengths[block] : 0;
    }
    if (block == blockLengths.length) {
      blockLengths = null;
      phase = Phase.FRAME_HEADER;
      ctx.fireChannelRead(new ReplyEnd(requestId));
    }
  }

  private void otherBody(ChannelHandlerContext ctx, ByteBuf in) {
    if (!gather(in)) {
      return;
    }
    ByteBuf body = gathered.retainedDuplicate();
    gathered.release();
    gathered = ctx.alloc().heapBuffer(64);
    phase = Phase.FRAME_HEADER;
    ctx.fireChannelRead(body);
  }

  private void fail(ChannelHandlerContext ctx, Exception e) {
    phase = Phase.FAILED;
    ctx.fireExceptionCaught(e);
  }
}
