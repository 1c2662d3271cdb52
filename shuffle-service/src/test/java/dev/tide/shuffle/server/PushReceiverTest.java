package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputIndex;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateRequest;
import dev.tide.shuffle.protocol.PushData;
import dev.tide.shuffle.protocol.PushOpen;
import dev.tide.shuffle.protocol.PushReply;
import dev.tide.shuffle.protocol.ShuffleMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pushes as the receiving service sees them on one authenticated connection (the server
 * pipeline over an {@link EmbeddedChannel}, real files): what is committed and served, and the
 * error each bad push gets while the connection keeps serving.
 */
class PushReceiverTest {
  private final ServerPipelineHarness h = new ServerPipelineHarness();
  private EmbeddedChannel server;
  /** Two segments: 100 bytes of 'a', 60 of 'b'. */
  private static final byte[] DATA = data();
  private static final byte[] INDEX = MapOutputIndex.ofLengths(new long[] {100, 60},
      new int[] {crc(DATA, 0, 100), crc(DATA, 100, 60)}).encode();

  private static byte[] data() {
    byte[] d = new byte[160];
    Arrays.fill(d, 0, 100, (byte) 'a');
    Arrays.fill(d, 100, 160, (byte) 'b');
    return d;
  }

  private static int crc(byte[] b, int from, int n) {
    CRC32C c = new CRC32C();
    c.update(b, from, n);
    return (int) c.getValue();
  }

  @BeforeEach
  void connect() {
    server = h.newConnection();
    h.authenticate(server);
  }

  @AfterEach
  void close() {
    h.close(server);
  }

  private List<ShuffleMessage> send(ShuffleMessage... messages) {
    for (ShuffleMessage m : messages) {
      ByteBuf frame = m.toFrame(UnpooledByteBufAllocator.DEFAULT);
      byte[] bytes = new byte[frame.readableBytes()];
      frame.readBytes(bytes);
      frame.release();
      h.feed(server, bytes);
    }
    return h.drainReplies(server);
  }

  private static PushOpen open(long id, String app, int shuffle, int map) {
    return new PushOpen(id, app, shuffle, map, DATA.length, INDEX);
  }

  @Test
  void aPushInPiecesIsCommittedAndThenServed() {
    List<ShuffleMessage> replies = send(open(1, ServerPipelineHarness.APP, 7, 0),
        PushData.of(1, 0, DATA, 0, 70), PushData.of(1, 70, DATA, 70, 90));

    assertEquals(List.of(new PushReply(1, 160)), replies);
    FetchReply fetched = assertInstanceOf(FetchReply.class, send(new FetchRequest(2,
        ServerPipelineHarness.APP, List.of(BlockId.of(7, 0, 0), BlockId.of(7, 0, 1)))).get(0));
    assertEquals(100, fetched.blockLength(0));
    assertEquals(60, fetched.blockLength(1));
    assertEquals(Integer.toUnsignedLong(crc(DATA, 100, 60)), fetched.blockChecksums()[1]);
    assertEquals(1, h.stats.pushesReceived());
  }

  @Test
  void aPieceDamagedOnTheWayIsRefusedAndNothingIsCommitted() {
    PushData good = PushData.of(3, 0, DATA, 0, 160);
    byte[] damaged = good.data().clone();
    damaged[5] ^= 1;
    List<ShuffleMessage> replies = send(open(3, ServerPipelineHarness.APP, 7, 1),
        new PushData(3, 0, good.checksum(), damaged));

    ErrorReply error = assertInstanceOf(ErrorReply.class, replies.get(0));
    assertEquals(ErrorCode.CORRUPT, error.code());
    assertTrue(error.message().contains("damaged on the way"), error.message());
    assertNotServed(7, 1);
  }

  @Test
  void bytesThatDoNotMatchTheMapTasksChecksumAreRefused() {
    byte[] other = DATA.clone();
    other[150] = 'x'; // its piece checksum is right, the segment's is not
    List<ShuffleMessage> replies = send(open(4, ServerPipelineHarness.APP, 7, 2),
        PushData.of(4, 0, other, 0, 160));

    ErrorReply error = assertInstanceOf(ErrorReply.class, replies.get(0));
    assertEquals(ErrorCode.CORRUPT, error.code());
    assertTrue(error.message().contains("segment 1"), error.message());
    assertNotServed(7, 2);
  }

  @Test
  void badPushesGetClearErrorsAndTheConnectionKeepsServing() {
    ErrorReply otherApp = assertInstanceOf(ErrorReply.class,
        send(open(5, ServerPipelineHarness.OTHER_APP, 7, 3)).get(0));
    assertEquals(ErrorCode.FORBIDDEN, otherApp.code());
    assertEquals(List.of(), send(PushData.of(5, 0, DATA, 0, 10)),
        "the pieces of a push refused FORBIDDEN are dropped quietly");

    ErrorReply unknown = assertInstanceOf(ErrorReply.class,
        send(PushData.of(6, 0, DATA, 0, 10)).get(0));
    assertEquals(ErrorCode.BAD_REQUEST, unknown.code());
    assertTrue(unknown.message().contains("no push 6"), unknown.message());

    ErrorReply outOfOrder = assertInstanceOf(ErrorReply.class, send(
        open(8, ServerPipelineHarness.APP, 7, 4), PushData.of(8, 10, DATA, 10, 10)).get(0));
    assertEquals(ErrorCode.BAD_REQUEST, outOfOrder.code());
    assertTrue(outOfOrder.message().contains("the next byte is 0"), outOfOrder.message());
    assertEquals(List.of(), send(PushData.of(8, 20, DATA, 20, 10)),
        "later pieces of a refused push are dropped quietly");

    ErrorReply lying = assertInstanceOf(ErrorReply.class, send(new PushOpen(9,
        ServerPipelineHarness.APP, 7, 5, 10, INDEX)).get(0));
    assertEquals(ErrorCode.BAD_REQUEST, lying.code());

    byte[] badIndex = INDEX.clone();
    badIndex[12] ^= 1;
    ErrorReply damagedIndex = assertInstanceOf(ErrorReply.class, send(new PushOpen(10,
        ServerPipelineHarness.APP, 7, 6, DATA.length, badIndex)).get(0));
    assertEquals(ErrorCode.CORRUPT, damagedIndex.code());

    ErrorReply tooMany = assertInstanceOf(ErrorReply.class, send(new MigrateRequest(11,
        ServerPipelineHarness.APP, "127.0.0.1", 7447, 1000,
        java.util.Collections.nCopies(65, new MapOutputId(0, 0)))).get(0));
    assertEquals(ErrorCode.BAD_REQUEST, tooMany.code());

    assertInstanceOf(FetchReply.class, send(new FetchRequest(12, ServerPipelineHarness.APP,
        List.of(BlockId.of(0, 0, 0)))).get(0));
    assertEquals(0, h.stats.internalErrors());
  }

  private void assertNotServed(int shuffle, int map) {
    ErrorReply missing = assertInstanceOf(ErrorReply.class, send(new FetchRequest(99,
        ServerPipelineHarness.APP, List.of(BlockId.of(shuffle, map, 0)))).get(0));
    assertEquals(ErrorCode.NOT_FOUND, missing.code());
  }
}
