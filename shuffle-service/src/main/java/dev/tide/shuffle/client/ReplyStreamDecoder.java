package dev.tide.shuffle.client;

import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.MessageTypes;
import dev.tide.shuffle.transport.Frames;
import dev.tide.shuffle.transport.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's frame decoder once the handshake is done: it reads the same frames as
 * {@link dev.tide.shuffle.transport.FrameDecoder} ({@code int32 length | byte type | payload}),
 * but copies the block data of a FETCH_REPLY straight from the socket's read buffers into
 * one {@code byte[]} per block as it arrives, instead of first gathering the whole reply (up to
 * the maximum reply size) in one buffer and copying it again. One copy per byte, and no
 * megabyte-sized direct buffers that grow by re-copying.
 *
 * <p>Emits a {@link ReceivedReply} for each FETCH_REPLY, and the body (type byte + payload) of
 * any other frame as a {@code ByteBuf} the next handler owns. Frames above
 * {@code maxFrameBytes}, lengths below 1 and replies whose header does not match their length
 * fire an exception (the handler closes the connection; replies are not resynchronized on the
 * client). One instance per channel; runs on its event loop.
 */
final class ReplyStreamDecoder extends ChannelInboundHandlerAdapter {
  /** A complete FETCH_REPLY: its header and the bytes of each block. */
  record ReceivedReply(FetchReply header, List<byte[]> blocks) {}

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
  private List<byte[]> blocks;
  private int block;
  private int blockFilled;

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
      long headerBytes = 1L + REPLY_FIXED_BYTES + 8L * count;
      if (count < 0 || headerBytes > frameLength) {
        fail(ctx, new MalformedFrameException("reply " + requestId + ": block count " + count
            + " does not fit its frame of " + frameLength + " bytes"));
        return;
      }
      blockLengths = new long[count];
      needed = (int) headerBytes - 1;
      if (!gather(in)) {
        return;
      }
    }
    gathered.skipBytes(REPLY_FIXED_BYTES);
    long dataBytes = 0;
    for (int i = 0; i < blockLengths.length; i++) {
      blockLengths[i] = gathered.readLong();
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
    blocks = new ArrayList<>(blockLengths.length);
    for (long len : blockLengths) {
      blocks.add(new byte[(int) len]);
    }
    block = 0;
    blockFilled = 0;
    phase = Phase.REPLY_DATA;
    finishReplyIfFilled(ctx);
  }

  private void replyData(ChannelHandlerContext ctx, ByteBuf in) {
    byte[] target = blocks.get(block);
    int n = Math.min(target.length - blockFilled, in.readableBytes());
    in.readBytes(target, blockFilled, n);
    blockFilled += n;
    finishReplyIfFilled(ctx);
  }

  /** Skips to the next block that still wants bytes; emits the reply when none does. */
  private void finishReplyIfFilled(ChannelHandlerContext ctx) {
    while (block < blocks.size() && blockFilled == blocks.get(block).length) {
      block++;
      blockFilled = 0;
    }
    if (block == blocks.size()) {
      ReceivedReply reply = new ReceivedReply(new FetchReply(requestId, blockLengths), blocks);
      blocks = null;
      blockLengths = null;
      phase = Phase.FRAME_HEADER;
      ctx.fireChannelRead(reply);
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
