package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.testing.CapturedLog;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.CorruptBlockDiagnosis;
import dev.tide.shuffle.client.CorruptBlockDiagnosis.Cause;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.VerifyReply;
import dev.tide.shuffle.protocol.VerifyRequest;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VERIFY_REQUEST through a real server and client on loopback: the service reads the block from
 * its disk again and answers with the CRC32C it computes now and the one its map task wrote, or
 * an ERROR; the reducer's diagnosis follows from it.
 */
class VerifyRequestTest {
  static final String APP = ShuffleServerTest.APP;
  static final byte[] SECRET = ShuffleServerTest.SECRET;
  static final int[] LENGTHS = {10, 0, 200_000, 7};
  static final ShuffleClientConfig NO_RETRIES = ShuffleClientConfig.DEFAULTS
      .withBusyRetries(0, java.time.Duration.ofMillis(100))
      .withConnectRetries(0, java.time.Duration.ofMillis(10));

  @TempDir Path nm;
  ShuffleServer server;
  List<Path> appDirs;
  ShuffleClient client;

  @BeforeEach
  void start() throws IOException {
    server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    server.registerApplication(ShuffleServerTest.OTHER_APP, "bob", ShuffleServerTest.OTHER_SECRET);
    appDirs = List.of(ShuffleLayout.appLocalDir(nm, "alice", APP));
    MapOutputs.writeChecksummed(appDirs, 1, 0, LENGTHS);
    client = new ShuffleClient(APP, SECRET, NO_RETRIES);
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private VerifyReply verify(BlockId block) throws ShuffleFetchException {
    return client.verify("127.0.0.1", server.port(), block);
  }

  private void flipByte(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x01)).rewind();
      ch.write(one, at);
    }
  }

  @Test
  void anIntactBlockReadsWithTheChecksumItsMapTaskWrote() throws Exception {
    long written = MapOutputs.checksum(1, 0, 2, LENGTHS[2]);
    // Fetched once first, so the index is cached: the verify must not rely on the cache.
    client.fetch("127.0.0.1", server.port(), List.of(BlockId.of(1, 0, 2)));
    VerifyReply reply = verify(BlockId.of(1, 0, 2));
    assertEquals(new VerifyReply(reply.requestId(), LENGTHS[2], written, written), reply);
    assertEquals(1, server.stats().verifiesServed());
    assertEquals(0, server.stats().verifiedDamaged());
    // An empty segment, and a range of several partitions (no stored checksum for it).
    assertEquals(FetchReply.NO_CHECKSUM, verify(new BlockId(1, 0, 0, 3)).storedChecksum());
    VerifyReply empty = verify(BlockId.of(1, 0, 1));
    assertEquals(0, empty.length());
    assertEquals(empty.storedChecksum(), empty.computedChecksum());
  }

  @Test
  void aFlippedBitInTheDataFileIsFoundOnDiskAndLoggedOnce() throws Exception {
    client.fetch("127.0.0.1", server.port(), List.of(BlockId.of(1, 0, 2)));
    Path data = ShuffleLayout.dataFile(appDirs.get(0), 1, 0);
    flipByte(data, LENGTHS[0] + 100_000);
    try (CapturedLog log = new CapturedLog(MapOutputResolver.class.getName())) {
      VerifyReply reply = verify(BlockId.of(1, 0, 2));
      assertTrue(reply.damagedOnDisk(), reply.toString());
      long written = MapOutputs.checksum(1, 0, 2, LENGTHS[2]);
      assertEquals(written, reply.storedChecksum());
      CorruptBlockDiagnosis diagnosis = CorruptBlockDiagnosis.classify(written, 12345,
          LENGTHS[2], reply);
      assertEquals(Cause.DISK, diagnosis.cause(), diagnosis.detail());
      verify(BlockId.of(1, 0, 2));
      assertEquals(1, log.lines().size(), log.lines().toString());
      assertTrue(log.lines().get(0).contains(data.toString())
          && log.lines().get(0).contains("segment 2"), log.lines().get(0));
    }
    assertEquals(2, server.stats().verifiedDamaged());
    // The other segments are intact.
    assertEquals(false, verify(BlockId.of(1, 0, 3)).damagedOnDisk());
  }

  @Test
  void aDamagedIndexOrDataFileLengthIsCorruptAndDiagnosedAsDisk() throws Exception {
    client.fetch("127.0.0.1", server.port(), List.of(BlockId.of(1, 0, 2)));
    Path index = ShuffleLayout.indexFile(appDirs.get(0), 1, 0);
    flipByte(index, 12);
    ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
        () -> verify(BlockId.of(1, 0, 2)));
    assertEquals(Reason.CORRUPT, e.reason());
    assertTrue(e.getMessage().contains("fails its checksum"), e.getMessage());
    assertEquals(Cause.DISK, CorruptBlockDiagnosis.diagnose(client, "127.0.0.1", server.port(),
        BlockId.of(1, 0, 2), 1, 2, LENGTHS[2]).cause());
    flipByte(index, 12);
    try (FileChannel ch = FileChannel.open(ShuffleLayout.dataFile(appDirs.get(0), 1, 0),
        StandardOpenOption.WRITE)) {
      ch.truncate(LENGTHS[0] + 50);
    }
    e = assertThrows(ShuffleFetchException.class, () -> verify(BlockId.of(1, 0, 2)));
    assertEquals(Reason.CORRUPT, e.reason());
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
  }

  @Test
  void missingOutputsRangesPastThePartitionsAndOtherApplicationsAreRefused() throws Exception {
    ShuffleFetchException missing = assertThrows(ShuffleFetchException.class,
        () -> verify(BlockId.of(1, 9, 0)));
    assertEquals(Reason.NOT_FOUND, missing.reason());
    assertEquals(List.of(BlockId.of(1, 9, 0)), missing.blocks());
    assertEquals(Cause.UNKNOWN, CorruptBlockDiagnosis.diagnose(client, "127.0.0.1",
        server.port(), BlockId.of(1, 9, 0), 1, 2, 3).cause());
    assertEquals(Reason.PROTOCOL, assertThrows(ShuffleFetchException.class,
        () -> verify(BlockId.of(1, 0, 4))).reason());
    try (RawPeers.RawClient peer = new RawPeers.RawClient(server.port(), APP, SECRET)) {
      peer.write(new VerifyRequest(5, ShuffleServerTest.OTHER_APP, BlockId.of(1, 0, 2))
          .toFrame(Unpooled.buffer().alloc()));
      ErrorReply refused = assertInstanceOf(ErrorReply.class, peer.nextReply());
      assertEquals(ErrorCode.FORBIDDEN, refused.code());
      assertEquals(5, refused.requestId());
    }
  }

  @Test
  void aServiceThatCannotBeReachedIsUnknown() throws Exception {
    int port = server.port();
    server.close();
    CorruptBlockDiagnosis d = CorruptBlockDiagnosis.diagnose(client, "127.0.0.1", port,
        BlockId.of(1, 0, 2), 1, 2, 3);
    assertEquals(Cause.UNKNOWN, d.cause());
    assertTrue(d.detail().contains("CONNECT"), d.detail());
  }

  @Test
  void aBlockLargerThanTheInFlightLimitIsVerifiedAloneAndItsBytesAreGivenBack()
      throws Exception {
    server.close();
    server = new ShuffleServer(ShuffleServerConfig.builder().bindHost("127.0.0.1").port(0)
        .localDirs(List.of(nm)).maxInFlightBytes(1000).build());
    server.start();
    server.registerApplication(APP, "alice", SECRET);
    // Nothing else in flight: a block larger than the limit is still verified, alone.
    assertEquals(LENGTHS[2], verify(BlockId.of(1, 0, 2)).length());
    Await.until(java.time.Duration.ofSeconds(5),
        "the verify's read and reply are no longer in flight", () -> server.inFlightBytes() == 0);
  }
}
