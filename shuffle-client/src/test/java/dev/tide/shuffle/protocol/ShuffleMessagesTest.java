package dev.tide.shuffle.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.FrameDecoder;
import dev.tide.network.Frames;
import dev.tide.network.MalformedFrameException;
import dev.tide.shuffle.BlockId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every message goes through a real frame and the frame decoder and comes back equal. */
class ShuffleMessagesTest {
  private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;

  private ShuffleMessage roundTrip(ShuffleMessage message, ByteBuf... frameParts) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20));
    for (ByteBuf part : frameParts) {
      ch.writeInbound(part);
    }
    ByteBuf body = ch.readInbound();
    try {
      assertEquals(message.type(), body.getByte(body.readerIndex()));
      return ShuffleMessages.decode(body);
    } finally {
      body.release();
      assertNull(ch.readInbound());
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void fetchRequestRoundTrips() {
    FetchRequest request = new FetchRequest(42, "application_1700000000000_0007",
        List.of(BlockId.of(0, 1, 2), new BlockId(3, 4, 5, 9), new BlockId(7, 0, 0, 1)));
    ShuffleMessage decoded = roundTrip(request, request.toFrame(alloc));
    assertEquals(request, decoded);
    assertEquals(MessageTypes.FETCH_REQUEST, decoded.type());
  }

  @Test
  void verifyRequestAndReplyRoundTrip() {
    VerifyRequest request = new VerifyRequest(77, "application_1700000000000_0007",
        new BlockId(3, 4, 5, 6));
    assertEquals(request, roundTrip(request, request.toFrame(alloc)));
    VerifyReply reply = new VerifyReply(77, 1 << 20, 0xffffffffL, FetchReply.NO_CHECKSUM);
    assertEquals(reply, roundTrip(reply, reply.toFrame(alloc)));
    VerifyReply damaged = new VerifyReply(78, 9, 1, 2);
    assertEquals(damaged, roundTrip(damaged, damaged.toFrame(alloc)));
    assertTrue(damaged.damagedOnDisk());
    assertTrue(!reply.damagedOnDisk() && !new VerifyReply(1, 0, 5, 5).damagedOnDisk());
  }

  @Test
  void verifyRepliesWithImpossibleChecksumsOrTrailingBytesAreMalformed() {
    for (long[] fields : new long[][] {{-1, 0, 0}, {0, -1, 0}, {0, 1L << 32, 0}, {0, 0, -2}}) {
      ByteBuf body = Unpooled.buffer().writeByte(MessageTypes.VERIFY_REPLY).writeLong(1)
          .writeLong(fields[0]).writeLong(fields[1]).writeLong(fields[2]);
      assertThrows(MalformedFrameException.class, () -> ShuffleMessages.decode(body));
    }
    VerifyRequest request = new VerifyRequest(1, "application_1_1", BlockId.of(0, 0, 0));
    ByteBuf frame = request.toFrame(alloc);
    ByteBuf body = frame.skipBytes(4).copy().writeByte(0);
    frame.release();
    assertThrows(MalformedFrameException.class, () -> ShuffleMessages.decode(body));
    ByteBuf badRange = Unpooled.buffer().writeByte(MessageTypes.VERIFY_REQUEST).writeLong(1)
        .writeShort(1).writeByte('a').writeInt(0).writeInt(0).writeInt(3).writeInt(3);
    assertThrows(MalformedFrameException.class, () -> ShuffleMessages.decode(badRange));
  }

  @Test
  void migrationMessagesRoundTrip() {
    MigrateRequest migrate = new MigrateRequest(5, "application_1700000000000_0007",
        "node-7.example.com", 7447, 120_000, List.of(new MapOutputId(3, 0),
        new MapOutputId(3, 9), new MapOutputId(0, Integer.MAX_VALUE)));
    assertEquals(migrate, roundTrip(migrate, migrate.toFrame(alloc)));
    MigrateReply reply = new MigrateReply(5, 1L << 40, List.of(new MapOutputId(3, 9)),
        "3/0: the target refused or failed: CORRUPT \u00e9");
    assertEquals(reply, roundTrip(reply, reply.toFrame(alloc)));
    MigrateReply empty = new MigrateReply(6, 0, List.of(), "");
    assertEquals(empty, roundTrip(empty, empty.toFrame(alloc)));
    PushOpen open = new PushOpen(7, "application_1_1", 3, 9, 160, new byte[] {1, 2, 3});
    assertEquals(open, roundTrip(open, open.toFrame(alloc)));
    PushData data = PushData.of(7, 4096, new byte[] {9, 8, 7, 6, 5}, 1, 3);
    PushData decodedData = (PushData) roundTrip(data, data.toFrame(alloc));
    assertEquals(data, decodedData);
    assertArrayEquals(new byte[] {8, 7, 6}, decodedData.data());
    assertTrue(decodedData.intact());
    PushData empties = PushData.of(7, 0, new byte[0], 0, 0);
    assertEquals(empties, roundTrip(empties, empties.toFrame(alloc)));
    PushReply pushed = new PushReply(7, 160);
    assertEquals(pushed, roundTrip(pushed, pushed.toFrame(alloc)));
  }

  @Test
  void migrationMessagesCutShortAnywhereAreMalformedWithTheirRequestId() {
    List<ShuffleMessage> messages = List.of(
        new MigrateRequest(41, "application_1_1", "h", 1, 1, List.of(new MapOutputId(1, 2))),
        new MigrateReply(42, 3, List.of(new MapOutputId(1, 2)), "x"),
        new PushOpen(43, "application_1_1", 1, 2, 3, new byte[] {1, 2}),
        PushData.of(44, 0, new byte[] {1, 2, 3}, 0, 3),
        new PushReply(45, 3));
    for (ShuffleMessage m : messages) {
      ByteBuf frame = m.toFrame(alloc);
      byte[] body = new byte[frame.readableBytes() - Frames.LENGTH_BYTES];
      frame.getBytes(Frames.LENGTH_BYTES, body);
      frame.release();
      for (int cut = 1; cut < body.length; cut++) {
        byte[] shortBody = java.util.Arrays.copyOf(body, cut);
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
            () -> ShuffleMessages.decode(Unpooled.wrappedBuffer(shortBody)),
            m + " cut at " + cut);
        boolean request = ShuffleMessages.isRequest(m.type());
        assertEquals(request && cut >= 9 ? m.requestId() : -1, e.requestId(), m + " cut at "
            + cut);
      }
      byte[] longer = java.util.Arrays.copyOf(body, body.length + 1);
      assertThrows(MalformedFrameException.class,
          () -> ShuffleMessages.decode(Unpooled.wrappedBuffer(longer)), m + " with a byte more");
    }
  }

  @Test
  void migrationMessagesWithImpossibleValuesAreMalformed() {
    // target port 0, negative timeout, negative map ids, a PUSH_DATA checksum past 32 bits,
    // a PUSH_DATA length that lies, a PUSH_OPEN index length that lies
    ByteBuf port = Unpooled.buffer().writeByte(MessageTypes.MIGRATE_REQUEST).writeLong(1)
        .writeShort(1).writeByte('a').writeShort(1).writeByte('h').writeInt(0).writeLong(1)
        .writeInt(0);
    assertMalformed(toArray(port), "target port 0");
    ByteBuf timeout = Unpooled.buffer().writeByte(MessageTypes.MIGRATE_REQUEST).writeLong(1)
        .writeShort(1).writeByte('a').writeShort(1).writeByte('h').writeInt(1).writeLong(-5)
        .writeInt(0);
    assertMalformed(toArray(timeout), "timeout");
    ByteBuf ids = Unpooled.buffer().writeByte(MessageTypes.MIGRATE_REQUEST).writeLong(1)
        .writeShort(1).writeByte('a').writeShort(1).writeByte('h').writeInt(1).writeLong(1)
        .writeInt(1).writeInt(-1).writeInt(0);
    assertMalformed(toArray(ids), "ids must be >= 0");
    ByteBuf count = Unpooled.buffer().writeByte(MessageTypes.MIGRATE_REQUEST).writeLong(1)
        .writeShort(1).writeByte('a').writeShort(1).writeByte('h').writeInt(1).writeLong(1)
        .writeInt(Integer.MAX_VALUE);
    assertMalformed(toArray(count), "map output count");
    ByteBuf crc = Unpooled.buffer().writeByte(MessageTypes.PUSH_DATA).writeLong(1).writeLong(0)
        .writeLong(1L << 32).writeInt(0);
    assertMalformed(toArray(crc), "not a CRC32C");
    ByteBuf length = Unpooled.buffer().writeByte(MessageTypes.PUSH_DATA).writeLong(1)
        .writeLong(0).writeLong(0).writeInt(5).writeByte(1);
    assertMalformed(toArray(length), "data length 5");
    ByteBuf index = Unpooled.buffer().writeByte(MessageTypes.PUSH_OPEN).writeLong(1)
        .writeShort(1).writeByte('a').writeInt(0).writeInt(0).writeLong(0)
        .writeInt(Integer.MAX_VALUE);
    assertMalformed(toArray(index), "index length");
  }

  @Test
  void emptyFetchRequestRoundTrips() {
    FetchRequest request = new FetchRequest(1, "application_1_1", List.of());
    assertEquals(request, roundTrip(request, request.toFrame(alloc)));
  }

  @Test
  void fetchReplyRoundTripsWithDataFollowingTheHeader() {
    FetchReply reply = new FetchReply(9, new long[] {3, 0, 5});
    ByteBuf header = reply.headerFrame(alloc);
    // The data arrives separately, as the server's file regions would send it.
    ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1 << 20));
    ch.writeInbound(header);
    assertNull(ch.readInbound(), "the frame is not complete without its data");
    ch.writeInbound(data);
    ByteBuf body = ch.readInbound();
    try {
      ShuffleMessage decoded = ShuffleMessages.decode(body);
      assertEquals(reply, decoded);
      assertEquals(8, body.readableBytes());
      byte[] rest = new byte[8];
      body.readBytes(rest);
      assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, rest);
    } finally {
      body.release();
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void emptyFetchReplyRoundTrips() {
    FetchReply reply = new FetchReply(5, new long[0]);
    assertEquals(reply, roundTrip(reply, reply.toFrame(alloc)));
  }

  @Test
  void errorRepliesRoundTripForEveryCode() {
    for (ErrorCode code : ErrorCode.values()) {
      ErrorReply error = new ErrorReply(77, code, "problem with " + code + " \u00e9",
          List.of(BlockId.of(1, 2, 3)));
      assertEquals(error, roundTrip(error, error.toFrame(alloc)));
      assertEquals(code, ErrorCode.fromWire(code.wire()));
    }
    ErrorReply anonymous = new ErrorReply(-1, ErrorCode.BAD_REQUEST, "unreadable");
    assertEquals(anonymous, roundTrip(anonymous, anonymous.toFrame(alloc)));
  }

  @Test
  void busyRepliesCarryTheRetryAfter() {
    ErrorReply busy = ErrorReply.busy(12, "too many bytes in flight", 750);
    ErrorReply decoded = (ErrorReply) roundTrip(busy, busy.toFrame(alloc));
    assertEquals(busy, decoded);
    assertEquals(750, decoded.retryAfterMillis());
    // Other codes never carry one; a BUSY from a server that sends none reads as 0.
    assertEquals(0, new ErrorReply(1, ErrorCode.INTERNAL, "x", List.of(), 99).retryAfterMillis());
    ByteBuf old = alloc.buffer().writeByte(MessageTypes.ERROR).writeLong(3)
        .writeByte(ErrorCode.BUSY.wire()).writeShort(0).writeInt(0);
    try {
      assertEquals(new ErrorReply(3, ErrorCode.BUSY, ""), ShuffleMessages.decode(old));
    } finally {
      old.release();
    }
  }

  @Test
  void longErrorMessagesAreCut() {
    ErrorReply error = new ErrorReply(1, ErrorCode.INTERNAL, "x".repeat(10_000));
    assertEquals(ErrorReply.MAX_MESSAGE_CHARS, error.message().length());
  }

  @Test
  void malformedBodiesAreRejectedWithAReason() {
    assertMalformed(new byte[] {}, "empty");
    assertMalformed(new byte[] {99}, "unknown");
    assertMalformed(new byte[] {MessageTypes.FETCH_REQUEST, 0, 0}, "truncated");
    ByteBuf lying = Unpooled.buffer();
    lying.writeByte(MessageTypes.FETCH_REQUEST).writeLong(1).writeShort(0).writeInt(1000);
    assertMalformed(toArray(lying), "block count 1000");
    ByteBuf countTooLarge = Unpooled.buffer();
    countTooLarge.writeByte(MessageTypes.FETCH_REQUEST).writeLong(1);
    countTooLarge.writeShort(15).writeBytes("application_1_1".getBytes());
    countTooLarge.writeInt(Integer.MAX_VALUE);
    assertMalformed(toArray(countTooLarge), "block count");
    ByteBuf badBlock = Unpooled.buffer();
    badBlock.writeByte(MessageTypes.FETCH_REQUEST).writeLong(1);
    badBlock.writeShort(15).writeBytes("application_1_1".getBytes());
    badBlock.writeInt(1).writeInt(0).writeInt(0).writeInt(5).writeInt(2);
    assertMalformed(toArray(badBlock), "invalid block");
    ByteBuf shortData = new FetchReply(1, new long[] {10}).headerFrame(alloc);
    shortData.skipBytes(Frames.LENGTH_BYTES);
    shortData.writeBytes(new byte[3]);
    assertMalformed(toArray(shortData), "announces 10");
  }

  private static byte[] toArray(ByteBuf buf) {
    byte[] out = new byte[buf.readableBytes()];
    buf.readBytes(out);
    buf.release();
    return out;
  }

  private static void assertMalformed(byte[] body, String expected) {
    MalformedFrameException e = assertThrows(MalformedFrameException.class,
        () -> ShuffleMessages.decode(Unpooled.wrappedBuffer(body)));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
