package dev.tide.shuffle.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.MalformedFrameException;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.MessageTypes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The client's streaming reply decoder, fed the exact wire bytes in pieces of every size. */
class ReplyStreamDecoderTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  /** A reply put back together from the decoder's start / pieces / end events. */
  record Assembled(FetchReply header, List<byte[]> blocks) {}

  /** Assembles replies from the events (copying each piece during its call, as sinks must). */
  static final class Assembler extends io.netty.channel.ChannelInboundHandlerAdapter {
    private FetchReply header;
    private java.io.ByteArrayOutputStream[] blocks;

    @Override
    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ReplyStreamDecoder.ReplyStart start) {
        header = start.header();
        blocks = new java.io.ByteArrayOutputStream[header.blockCount()];
        for (int i = 0; i < blocks.length; i++) {
          blocks[i] = new java.io.ByteArrayOutputStream();
        }
      } else if (msg instanceof ReplyStreamDecoder.ReplyPiece piece) {
        byte[] bytes = new byte[piece.data().readableBytes()];
        piece.data().getBytes(piece.data().readerIndex(), bytes);
        blocks[piece.block()].writeBytes(bytes);
      } else if (msg instanceof ReplyStreamDecoder.ReplyEnd end) {
        assertEquals(header.requestId(), end.requestId());
        List<byte[]> out = new java.util.ArrayList<>();
        for (java.io.ByteArrayOutputStream b : blocks) {
          out.add(b.toByteArray());
        }
        ctx.fireChannelRead(new Assembled(header, out));
      } else {
        ctx.fireChannelRead(msg);
      }
    }
  }

  private static EmbeddedChannel channel(int maxFrameBytes) {
    return new EmbeddedChannel(new ReplyStreamDecoder(maxFrameBytes), new Assembler());
  }

  /** A FETCH_REPLY frame with blocks of the given lengths, block i filled with byte i+1. */
  private static ByteBuf replyFrame(long requestId, int... lengths) {
    long[] longs = new long[lengths.length];
    for (int i = 0; i < lengths.length; i++) {
      longs[i] = lengths[i];
    }
    FetchReply header = new FetchReply(requestId, longs);
    ByteBuf frame = header.headerFrame(ALLOC);
    for (int i = 0; i < lengths.length; i++) {
      for (int j = 0; j < lengths[i]; j++) {
        frame.writeByte(i + 1);
      }
    }
    return frame;
  }

  private static void feedInPieces(EmbeddedChannel ch, ByteBuf wire, Random random, int maxPiece) {
    while (wire.isReadable()) {
      int n = Math.min(wire.readableBytes(), 1 + random.nextInt(maxPiece));
      ch.writeInbound(wire.readRetainedSlice(n));
    }
    wire.release();
  }

  @Test
  void repliesAndErrorsSplitAnywhereComeOutWhole() {
    Random random = new Random(42);
    for (int maxPiece : new int[] {1, 3, 17, 4096}) {
      EmbeddedChannel ch = channel(1 << 20);
      ByteBuf wire = ALLOC.buffer();
      ByteBuf reply = replyFrame(7, 5, 0, 3000, 1);
      ByteBuf error = new ErrorReply(8, ErrorCode.NOT_FOUND, "gone",
          List.of(BlockId.of(0, 1, 2)), 0).toFrame(ALLOC);
      ByteBuf empty = replyFrame(9);
      wire.writeBytes(reply).writeBytes(error).writeBytes(empty);
      reply.release();
      error.release();
      empty.release();
      feedInPieces(ch, wire, random, maxPiece);

      Assembled first = ch.readInbound();
      assertEquals(new FetchReply(7, new long[] {5, 0, 3000, 1}), first.header());
      assertEquals(4, first.blocks().size());
      for (int i = 0; i < 4; i++) {
        byte[] expected = new byte[(int) first.header().blockLength(i)];
        java.util.Arrays.fill(expected, (byte) (i + 1));
        assertArrayEquals(expected, first.blocks().get(i), "block " + i + ", pieces " + maxPiece);
      }
      ByteBuf errorBody = ch.readInbound();
      assertEquals(MessageTypes.ERROR, errorBody.getByte(errorBody.readerIndex()));
      errorBody.release();
      Assembled last = ch.readInbound();
      assertEquals(9, last.header().requestId());
      assertTrue(last.blocks().isEmpty());
      assertNull(ch.readInbound());
      assertFalse(ch.finish());
    }
  }

  @Test
  void aReplyWhoseLengthsDoNotAddUpIsRefused() {
    EmbeddedChannel ch = channel(1 << 20);
    ByteBuf frame = replyFrame(3, 10, 10);
    frame.setInt(0, frame.getInt(0) - 4); // the frame claims 4 data bytes fewer
    frame.writerIndex(frame.writerIndex() - 4);
    MalformedFrameException e = assertThrows(MalformedFrameException.class,
        () -> ch.writeInbound(frame));
    assertTrue(e.getMessage().contains("announces 20 bytes of data but its frame carries 16"),
        e.getMessage());
    ch.finishAndReleaseAll();
  }

  @Test
  void aBlockCountThatCannotFitIsRefusedBeforeAllocating() {
    EmbeddedChannel ch = channel(1 << 20);
    ByteBuf frame = Unpooled.buffer();
    frame.writeInt(1 + 12).writeByte(MessageTypes.FETCH_REPLY).writeLong(4)
        .writeInt(Integer.MAX_VALUE);
    MalformedFrameException e = assertThrows(MalformedFrameException.class,
        () -> ch.writeInbound(frame));
    assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
    ch.finishAndReleaseAll();
  }

  @Test
  void anOversizedFrameIsRefused() {
    EmbeddedChannel ch = channel(100);
    ByteBuf frame = replyFrame(1, 200);
    TooLongFrameException e = assertThrows(TooLongFrameException.class,
        () -> ch.writeInbound(frame));
    assertTrue(e.getMessage().contains("exceeds the limit of 100"), e.getMessage());
    // Nothing more is read from a connection whose framing is lost.
    ch.writeInbound(replyFrame(2, 1));
    assertNull(ch.readInbound());
    ch.finishAndReleaseAll();
  }

  @Test
  void frameBodiesOtherThanRepliesPassThroughAsBuffers() {
    EmbeddedChannel ch = channel(1 << 20);
    ByteBuf error = new ErrorReply(-1, ErrorCode.BAD_REQUEST, "what?", List.of(), 0)
        .toFrame(ALLOC);
    ch.writeInbound(error);
    ByteBuf body = assertInstanceOf(ByteBuf.class, ch.readInbound());
    assertEquals(MessageTypes.ERROR, body.readByte());
    body.release();
    assertFalse(ch.finish());
  }
}
