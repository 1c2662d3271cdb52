package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.crypto.AEADBadTagException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The record layer on its own: {@link SessionKeys}, {@link RecordCipher}, and the
 * {@link RecordSealer} / {@link RecordOpener} pair on embedded channels: round trips of buffers
 * and file regions, and every kind of damage a peer or the network can do (a flipped bit in the
 * length, the ciphertext or the tag, a replayed, reordered, dropped or cut record, another key,
 * a length beyond the cap), each ending the connection with one error naming the peer.
 */
class RecordLayerTest {
  private static final String APP = "application_1700000000000_0007";
  private static final byte[] SECRET = "secret-of-app-7".getBytes(StandardCharsets.UTF_8);
  private static final ThrottledLog LOG = new ThrottledLog(
      LoggerFactory.getLogger(RecordLayerTest.class), Duration.ofSeconds(10), System::nanoTime);

  @TempDir
  Path dir;

  private static byte[] nonce(int seed) {
    byte[] n = new byte[32];
    new Random(seed).nextBytes(n);
    return n;
  }

  private static final SessionKeys CLIENT = SessionKeys.derive(SECRET, APP, nonce(1), nonce(2),
      true);
  private static final SessionKeys SERVER = SessionKeys.derive(SECRET, APP, nonce(1), nonce(2),
      false);

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Collects what the opener passes on, and the exceptions it fires. */
  private static final class Sink extends ChannelInboundHandlerAdapter {
    final ByteArrayOutputStream received = new ByteArrayOutputStream();
    final List<Throwable> errors = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      byte[] b = new byte[buf.readableBytes()];
      buf.readBytes(b);
      received.writeBytes(b);
      buf.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      errors.add(cause);
    }
  }

  /** The wire bytes the client's sealer produces for {@code writes}, each flushed. */
  private static byte[] seal(SessionKeys keys, Object... writes) {
    EmbeddedChannel ch = new EmbeddedChannel(new RecordSealer(keys.sendKey()));
    for (Object w : writes) {
      ChannelFuture f = ch.writeAndFlush(w);
      assertTrue(f.isSuccess(), () -> String.valueOf(f.cause()));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      byte[] a = new byte[b.readableBytes()];
      b.readBytes(a);
      out.writeBytes(a);
      b.release();
    }
    ch.finishAndReleaseAll();
    return out.toByteArray();
  }

  private static EmbeddedChannel opener(SessionKeys keys, Sink sink) {
    return new EmbeddedChannel(new RecordOpener(keys.receiveKey(), APP, null, LOG), sink);
  }

  private static Sink open(SessionKeys keys, byte[] wire) {
    Sink sink = new Sink();
    EmbeddedChannel ch = opener(keys, sink);
    ch.writeInbound(Unpooled.wrappedBuffer(wire));
    ch.finishAndReleaseAll();
    return sink;
  }

  private static int recordLength(byte[] wire, int at) {
    return (wire[at] & 0xff) << 24 | (wire[at + 1] & 0xff) << 16 | (wire[at + 2] & 0xff) << 8
        | (wire[at + 3] & 0xff);
  }

  private static void assertFailsNaming(Sink sink, String what) {
    assertEquals(1, sink.errors.size(), () -> "errors: " + sink.errors);
    RecordCryptoException e = assertInstanceOf(RecordCryptoException.class, sink.errors.get(0));
    assertTrue(e.getMessage().contains("application " + APP), e.getMessage());
    assertTrue(e.getMessage().contains("embedded"), "names the peer: " + e.getMessage());
    assertTrue(e.getMessage().contains(what), e.getMessage());
    assertEquals(0, e.getStackTrace().length, "no stack trace for a peer's bytes");
  }

  @Test
  void keysDifferPerDirectionAndPerConnectionAndMatchAcrossSides() {
    assertArrayEquals(CLIENT.sendKey(), SERVER.receiveKey());
    assertArrayEquals(SERVER.sendKey(), CLIENT.receiveKey());
    assertFalse(java.util.Arrays.equals(CLIENT.sendKey(), CLIENT.receiveKey()));
    SessionKeys other = SessionKeys.derive(SECRET, APP, nonce(1), nonce(3), true);
    assertFalse(java.util.Arrays.equals(CLIENT.sendKey(), other.sendKey()));
    SessionKeys otherApp = SessionKeys.derive(SECRET, APP + "1", nonce(1), nonce(2), true);
    assertFalse(java.util.Arrays.equals(CLIENT.sendKey(), otherApp.sendKey()));
    assertEquals(SessionKeys.KEY_BYTES, CLIENT.sendKey().length);
    assertEquals("SessionKeys[hidden]", CLIENT.toString());
  }

  @Test
  void cipherRoundTripsAndCountsRecords() throws Exception {
    RecordCipher sealer = RecordCipher.sealer(CLIENT.sendKey());
    RecordCipher opener = RecordCipher.opener(SERVER.receiveKey());
    for (int len : new int[] {1, 15, 16, 17, 4096, RecordCipher.MAX_PLAINTEXT_BYTES}) {
      byte[] plain = bytes(len, len);
      byte[] record = new byte[len + 20];
      assertEquals(len + 20, sealer.seal(plain, 0, len, record, 0));
      assertEquals(len + 16, recordLength(record, 0));
      byte[] back = new byte[len];
      assertEquals(len, opener.open(len + 16, record, 4, back, 0));
      assertArrayEquals(plain, back);
    }
    assertEquals(6, sealer.recordNumber());
    assertEquals(6, opener.recordNumber());
    assertThrows(IllegalArgumentException.class, () -> sealer.seal(new byte[0], 0, 0,
        new byte[20], 0));
    assertThrows(IllegalArgumentException.class, () -> sealer.seal(
        new byte[RecordCipher.MAX_PLAINTEXT_BYTES + 1], 0, RecordCipher.MAX_PLAINTEXT_BYTES + 1,
        new byte[RecordCipher.MAX_PLAINTEXT_BYTES + 21], 0));
  }

  @Test
  void sealingInPlaceGivesTheSameRecordAsSealingIntoAnotherArray() throws Exception {
    RecordCipher apart = RecordCipher.sealer(CLIENT.sendKey());
    RecordCipher inPlace = RecordCipher.sealer(CLIENT.sendKey());
    for (int len : new int[] {1, 17, 1000, RecordCipher.MAX_PLAINTEXT_BYTES}) {
      byte[] plain = bytes(len, len);
      byte[] expected = new byte[len + 20];
      apart.seal(plain, 0, len, expected, 0);
      byte[] record = new byte[len + 20];
      System.arraycopy(plain, 0, record, RecordCipher.HEADER_BYTES, len);
      assertEquals(len + 20, inPlace.seal(record, RecordCipher.HEADER_BYTES, len, record, 0));
      assertArrayEquals(expected, record, "record of " + len + " bytes");
    }
  }

  @Test
  void recordsLeaveTheSealerInDirectBuffersOfOneRecordEach() throws Exception {
    byte[] file = bytes(150_000, 11);
    Path data = Files.write(dir.resolve("direct"), file);
    EmbeddedChannel ch = new EmbeddedChannel(new RecordSealer(CLIENT.sendKey()));
    assertTrue(ch.writeAndFlush(new DefaultFileRegion(data.toFile(), 0, file.length)).isSuccess());
    List<Integer> lengths = new ArrayList<>();
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      assertTrue(b.isDirect(), "a record the transport can send without copying it");
      lengths.add(b.readableBytes());
      wire.writeBytes(toArray(b));
    }
    int full = 4 + RecordCipher.MAX_PLAINTEXT_BYTES + 16;
    assertEquals(List.of(full, full, 4 + 150_000 - 2 * RecordCipher.MAX_PLAINTEXT_BYTES + 16),
        lengths);
    assertArrayEquals(file, open(SERVER, wire.toByteArray()).received.toByteArray());
    ch.finishAndReleaseAll();
  }

  @Test
  void recordsArriveWhateverTheReadsCutThemInto() {
    // three records: 64 KiB, 1 byte and 5,000 bytes of plaintext
    byte[] plain = bytes(RecordCipher.MAX_PLAINTEXT_BYTES + 1 + 5_000, 12);
    byte[] wire = concat(concat(
        seal(CLIENT, Unpooled.wrappedBuffer(plain, 0, RecordCipher.MAX_PLAINTEXT_BYTES)),
        sealAfter(1, Unpooled.wrappedBuffer(plain, RecordCipher.MAX_PLAINTEXT_BYTES, 1))),
        sealAfter(2, Unpooled.wrappedBuffer(plain, RecordCipher.MAX_PLAINTEXT_BYTES + 1, 5_000)));
    int second = 4 + recordLength(wire, 0);
    int third = second + 4 + recordLength(wire, second);
    // reads of every size from 1 to 9 bytes (the prefix cut everywhere), one read of all, and
    // reads cut just before, inside and after each record's prefix
    List<int[]> cuts = new ArrayList<>();
    for (int size = 1; size <= 9; size++) {
      cuts.add(new int[] {size});
    }
    cuts.add(new int[] {wire.length});
    for (int cut : new int[] {second - 1, second + 2, second + 4, third - 1, third + 3}) {
      cuts.add(new int[] {cut, wire.length - cut});
    }
    for (int[] cut : cuts) {
      Sink sink = new Sink();
      EmbeddedChannel ch = opener(SERVER, sink);
      int at = 0;
      for (int i = 0; at < wire.length; i = Math.min(i + 1, cut.length - 1)) {
        int n = Math.min(cut[i], wire.length - at);
        ch.writeInbound(Unpooled.wrappedBuffer(wire, at, n));
        at += n;
      }
      String how = "reads of " + java.util.Arrays.toString(cut);
      assertTrue(sink.errors.isEmpty(), () -> how + ": " + sink.errors);
      assertArrayEquals(plain, sink.received.toByteArray(), how);
      assertTrue(ch.isOpen(), how);
      ch.finishAndReleaseAll();
      assertTrue(sink.errors.isEmpty(), () -> how + " ends at a record boundary: " + sink.errors);
    }
  }

  /** The wire bytes of a record that a sealer seals after {@code before} others. */
  private static byte[] sealAfter(int before, ByteBuf plain) {
    Object[] writes = new Object[before + 1];
    for (int i = 0; i < before; i++) {
      writes[i] = Unpooled.wrappedBuffer(new byte[1]);
    }
    writes[before] = plain;
    byte[] all = seal(CLIENT, writes);
    int at = 0;
    for (int i = 0; i < before; i++) {
      at += 4 + recordLength(all, at);
    }
    return java.util.Arrays.copyOfRange(all, at, all.length);
  }

  @Test
  void theSameBytesSealTwiceDifferently() {
    byte[] plain = "the same block".getBytes(StandardCharsets.UTF_8);
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(plain), Unpooled.wrappedBuffer(plain));
    int first = 4 + recordLength(wire, 0);
    assertEquals(2 * first, wire.length);
    assertNotEquals(Unpooled.wrappedBuffer(wire, 4, first - 4),
        Unpooled.wrappedBuffer(wire, first + 4, first - 4), "a fresh nonce per record");
  }

  @Test
  void buffersAndFileRegionsRoundTripThroughSealerAndOpener() throws Exception {
    byte[] head = "header".getBytes(StandardCharsets.UTF_8);
    byte[] file = bytes(200_000, 3); // three full records and a part
    Path data = Files.write(dir.resolve("data"), file);
    byte[] tail = bytes(10, 4);
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(head),
        new DefaultFileRegion(data.toFile(), 1000, 150_000), Unpooled.wrappedBuffer(tail),
        Unpooled.EMPTY_BUFFER);
    Sink sink = open(SERVER, wire);
    assertTrue(sink.errors.isEmpty(), () -> "errors: " + sink.errors);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.writeBytes(head);
    expected.write(file, 1000, 150_000);
    expected.writeBytes(tail);
    assertArrayEquals(expected.toByteArray(), sink.received.toByteArray());
    assertFalse(new String(wire, StandardCharsets.ISO_8859_1).contains("header"));
  }

  @Test
  void recordsSplitAcrossReadsAreReassembled() {
    byte[] plain = bytes(100_000, 5);
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(plain));
    Sink sink = new Sink();
    EmbeddedChannel ch = opener(SERVER, sink);
    for (int i = 0; i < wire.length; i += 777) {
      ch.writeInbound(Unpooled.wrappedBuffer(wire, i, Math.min(777, wire.length - i)));
    }
    assertArrayEquals(plain, sink.received.toByteArray());
    assertTrue(ch.isOpen());
    ch.finishAndReleaseAll();
  }

  @Test
  void everyFlippedBitOfARecordFailsIt() {
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(bytes(40, 6)));
    // length prefix, ciphertext and tag: one position of each, and every one for a short record
    for (int at = 0; at < wire.length; at++) {
      byte[] bad = wire.clone();
      bad[at] ^= 0x01;
      Sink sink = open(SERVER, bad);
      assertEquals(0, sink.received.size(), "nothing of a damaged record is passed on");
      if (at < 4) {
        // a changed length is either refused as out of range, or the record ends elsewhere
        assertEquals(1, sink.errors.size(), "byte " + at);
      } else {
        assertFailsNaming(sink, "record 0 failed authentication");
      }
    }
  }

  @Test
  void replayedReorderedAndDroppedRecordsFail() {
    byte[] a = "first".getBytes(StandardCharsets.UTF_8);
    byte[] b = "second".getBytes(StandardCharsets.UTF_8);
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(a), Unpooled.wrappedBuffer(b));
    int split = 4 + recordLength(wire, 0);
    byte[] r0 = java.util.Arrays.copyOfRange(wire, 0, split);
    byte[] r1 = java.util.Arrays.copyOfRange(wire, split, wire.length);

    Sink replayed = open(SERVER, concat(r0, r0));
    assertArrayEquals(a, replayed.received.toByteArray());
    assertFailsNaming(replayed, "record 1 failed authentication");

    Sink reordered = open(SERVER, concat(r1, r0));
    assertEquals(0, reordered.received.size());
    assertFailsNaming(reordered, "record 0 failed authentication");

    Sink dropped = open(SERVER, r1);
    assertFailsNaming(dropped, "record 0 failed authentication");
  }

  @Test
  void aRecordUnderAnotherKeyFails() {
    SessionKeys otherConnection = SessionKeys.derive(SECRET, APP, nonce(9), nonce(2), true);
    byte[] wire = seal(otherConnection, Unpooled.wrappedBuffer(bytes(100, 7)));
    assertFailsNaming(open(SERVER, wire), "record 0 failed authentication");
    // the server's own direction is not accepted back either (reflection)
    byte[] reflected = seal(SERVER, Unpooled.wrappedBuffer(bytes(100, 7)));
    assertFailsNaming(open(SERVER, reflected), "failed authentication");
  }

  @Test
  void aConnectionEndingInsideARecordIsAnError() {
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer(bytes(1000, 8)));
    Sink sink = open(SERVER, java.util.Arrays.copyOf(wire, wire.length - 1));
    assertEquals(0, sink.received.size());
    assertFailsNaming(sink, "ended inside record 0 (1019 bytes of it received)");
  }

  @Test
  void aLengthAboveTheCapIsRefusedUnbufferedAndTheChannelClosed() {
    Sink sink = new Sink();
    EmbeddedChannel ch = opener(SERVER, sink);
    ByteBuf huge = Unpooled.buffer().writeInt(RecordCipher.MAX_RECORD_LENGTH + 1)
        .writeBytes(new byte[1000]);
    ch.writeInbound(huge);
    assertFailsNaming(sink, "a record length of " + (RecordCipher.MAX_RECORD_LENGTH + 1));
    assertFalse(ch.isOpen(), "the connection is closed");
    assertEquals(1, sink.errors.size(), "one error");
    assertNull(ch.readInbound());
    ch.finishAndReleaseAll();
  }

  @Test
  void plaintextFramesSentToAnEncryptedConnectionAreRefused() {
    // a peer that does not encrypt: a frame header reads as a far too short or long record
    ByteBuf frame = Frames.start(Unpooled.buffer().alloc(), (byte) 20);
    frame.writeBytes(new byte[30]);
    Sink sink = open(SERVER, toArray(Frames.finish(frame)));
    assertEquals(1, sink.errors.size());
    assertInstanceOf(RecordCryptoException.class, sink.errors.get(0));
  }

  @Test
  void bytesReceivedWithTheHandshakeAreOpenedFirst() {
    byte[] wire = seal(CLIENT, Unpooled.wrappedBuffer("early".getBytes(StandardCharsets.UTF_8)),
        Unpooled.wrappedBuffer("later".getBytes(StandardCharsets.UTF_8)));
    int split = 4 + recordLength(wire, 0) + 3;
    Sink sink = new Sink();
    EmbeddedChannel ch = new EmbeddedChannel(new RecordOpener(SERVER.receiveKey(), APP,
        Unpooled.wrappedBuffer(wire, 0, split), LOG), sink);
    ch.writeInbound(Unpooled.wrappedBuffer(wire, split, wire.length - split));
    assertEquals("earlylater", sink.received.toString(StandardCharsets.UTF_8));
    ch.finishAndReleaseAll();
  }

  @Test
  void writesWaitForFlushAndComplete() {
    EmbeddedChannel ch = new EmbeddedChannel(new RecordSealer(CLIENT.sendKey()));
    ChannelFuture first = ch.write(Unpooled.wrappedBuffer(bytes(10, 1)));
    assertFalse(first.isDone());
    assertNull(ch.readOutbound(), "nothing sealed before a flush");
    ChannelFuture second = ch.writeAndFlush(Unpooled.wrappedBuffer(bytes(10, 2)));
    assertTrue(first.isSuccess());
    assertTrue(second.isSuccess());
    ByteBuf record = ch.readOutbound();
    assertEquals(4 + 20 + 16, record.readableBytes(), "two small writes, one record");
    record.release();
    ChannelFuture odd = ch.writeAndFlush("not bytes");
    assertInstanceOf(IllegalArgumentException.class, odd.cause());
    ch.finishAndReleaseAll();
  }

  private static byte[] toArray(ByteBuf buf) {
    byte[] b = new byte[buf.readableBytes()];
    buf.readBytes(b);
    buf.release();
    return b;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  @Test
  void openerRefusesARecordOfAnotherConnectionInTheCipherToo() {
    RecordCipher opener = RecordCipher.opener(SERVER.receiveKey());
    RecordCipher other = RecordCipher.sealer(SERVER.sendKey());
    byte[] record = new byte[30];
    other.seal(bytes(10, 1), 0, 10, record, 0);
    assertThrows(AEADBadTagException.class, () -> opener.open(26, record, 4, new byte[10], 0));
  }
}
