package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
  private static ByteBuf frame(byte type, String payload) {
    ByteBuf buf = Frames.start(ByteBufAllocator.DEFAULT, type);
    buf.writeBytes(payload.getBytes());
    return Frames.finish(buf);
  }

  private static String bodyText(EmbeddedChannel ch, byte expectedType) {
    ByteBuf body = ch.readInbound();
    try {
      assertEquals(expectedType, body.readByte());
      return body.toString(java.nio.charset.StandardCharsets.US_ASCII);
    } finally {
      body.release();
    }
  }

  @Test
  void finishWritesTheLengthOfTypeAndPayload() {
    ByteBuf f = frame((byte) 64, "abc");
    assertEquals(4, f.getInt(0));
    assertEquals(64, f.getByte(4));
    f.release();
  }

  @Test
  void reassemblesFramesSplitAtEveryByte() {
    ByteBuf all = Unpooled.buffer();
    all.writeBytes(frame((byte) 16, "hello"));
    all.writeBytes(frame((byte) 17, ""));
    all.writeBytes(frame((byte) 18, "world!"));
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(100));
    while (all.isReadable()) {
      ch.writeInbound(all.readRetainedSlice(1));
    }
    all.release();
    assertEquals("hello", bodyText(ch, (byte) 16));
    assertEquals("", bodyText(ch, (byte) 17));
    assertEquals("world!", bodyText(ch, (byte) 18));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void aRaisedLimitAppliesToTheFramesThatFollow() {
    FrameDecoder decoder = new FrameDecoder(8);
    EmbeddedChannel ch = new EmbeddedChannel(decoder);
    assertThrows(TooLongFrameException.class, () -> ch.writeInbound(frame((byte) 16, "too long")));
    decoder.maxFrameBytes(100);
    ch.writeInbound(frame((byte) 17, "now it fits"));
    assertEquals("now it fits", bodyText(ch, (byte) 17));
    assertFalse(ch.finish());
  }

  @Test
  void pausedDecoderKeepsFramesAndStopsReadingUntilResumed() {
    FrameDecoder decoder = new FrameDecoder(100);
    EmbeddedChannel ch = new EmbeddedChannel(decoder);
    ch.writeInbound(frame((byte) 16, "one"));
    decoder.pause();
    assertFalse(ch.config().isAutoRead());
    ByteBuf two = Unpooled.buffer();
    two.writeBytes(frame((byte) 17, "two"));
    two.writeBytes(frame((byte) 18, "three"));
    ch.writeInbound(two);
    assertEquals("one", bodyText(ch, (byte) 16));
    assertNull(ch.readInbound(), "nothing split while paused");
    decoder.resume();
    ch.runPendingTasks();
    assertEquals("two", bodyText(ch, (byte) 17));
    assertEquals("three", bodyText(ch, (byte) 18));
    assertTrue(ch.config().isAutoRead(), "reading again once nothing is left to split");
    assertFalse(ch.finish());
  }

  @Test
  void oversizedFrameIsSkippedAndTheNextOneDecoded() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(16));
    ByteBuf big = frame((byte) 16, "x".repeat(1000));
    // The announced length is refused as soon as the prefix arrives.
    assertThrows(TooLongFrameException.class, () -> ch.writeInbound(big.readRetainedSlice(10)));
    ch.writeInbound(big.readRetainedSlice(big.readableBytes()));
    big.release();
    ch.writeInbound(frame((byte) 17, "ok"));
    assertEquals("ok", bodyText(ch, (byte) 17));
    assertFalse(ch.finish());
  }

  @Test
  void nonPositiveLengthIsCorruptAndDiscardsTheRest() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(16));
    ByteBuf bad = Unpooled.buffer().writeInt(-5).writeBytes(new byte[7]);
    assertThrows(CorruptedFrameException.class, () -> ch.writeInbound(bad));
    ch.writeInbound(frame((byte) 17, "ok"));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }
}
