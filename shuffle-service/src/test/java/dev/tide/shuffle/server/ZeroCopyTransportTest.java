package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import io.netty.channel.epoll.Epoll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same blocks fetched through the NIO transport (always) and the native epoll transport
 * (wherever {@link Epoll#isAvailable()}; asserted, not skipped, when it is) arrive identical, and
 * every data byte left the server through a zero-copy file region (sendfile under epoll,
 * FileChannel.transferTo under NIO). Prints which transports ran.
 */
class ZeroCopyTransportTest {
  static final String APP = ShuffleServerTest.APP;
  /** Segments from empty to several MiB, so regions span many socket writes. */
  static final int[][] LENGTHS = {{3 << 20, 0, 70_000, 1}, {17, 1 << 20, 0, 5_000_000}};

  @TempDir Path nm;

  @Test
  void nioAndEpollServeTheSameBytesZeroCopy() throws Exception {
    Path appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
    for (int m = 0; m < LENGTHS.length; m++) {
      MapOutputs.write(List.of(appDir), 0, m, LENGTHS[m]);
    }
    List<BlockId> blocks = List.of(new BlockId(0, 0, 0, 4), BlockId.of(0, 1, 3),
        BlockId.of(0, 0, 2), BlockId.of(0, 1, 1), BlockId.of(0, 0, 1), new BlockId(0, 1, 0, 2));
    List<String> ran = new ArrayList<>();

    List<byte[]> viaNio = fetchThrough(false, "nio", blocks);
    ran.add("nio");
    for (int i = 0; i < blocks.size(); i++) {
      BlockId b = blocks.get(i);
      assertArrayEquals(MapOutputs.expected(0, b.mapId(), LENGTHS[b.mapId()], b.reduceStart(),
          b.reduceEnd()), viaNio.get(i), "block " + b + " via nio");
    }
    if (Epoll.isAvailable()) {
      List<byte[]> viaEpoll = fetchThrough(true, "epoll", blocks);
      ran.add("epoll");
      for (int i = 0; i < blocks.size(); i++) {
        assertArrayEquals(viaNio.get(i), viaEpoll.get(i), "block " + blocks.get(i) + " via epoll");
      }
    } else {
      System.out.println("native epoll unavailable here: " + Epoll.unavailabilityCause());
    }
    System.out.println("zero-copy fetch verified through: " + ran);
  }

  @Test
  void shortRangesAreSentFromMemoryLongOnesZeroCopy() throws Exception {
    Path appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
    int[][] lengths = {{100, 40_000, 5, 1 << 20}, {7, 0, 32_767, 32_768}};
    for (int m = 0; m < lengths.length; m++) {
      MapOutputs.write(List.of(appDir), 1, m, lengths[m]);
    }
    // Interleaved maps, so no two ranges are adjacent in one file and nothing coalesces.
    List<BlockId> blocks = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      blocks.add(BlockId.of(1, 0, r));
      blocks.add(BlockId.of(1, 1, r));
    }
    try (ShuffleServer server = new ShuffleServer(ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(nm)).copyBelowBytes(32_768).build())) {
      server.start();
      server.registerApplication(APP, "alice", ShuffleServerTest.SECRET);
      try (ShuffleClient client = new ShuffleClient(APP, ShuffleServerTest.SECRET)) {
        List<byte[]> data = client.fetch("127.0.0.1", server.port(), blocks);
        for (int i = 0; i < blocks.size(); i++) {
          BlockId b = blocks.get(i);
          assertArrayEquals(MapOutputs.expected(1, b.mapId(), lengths[b.mapId()],
              b.reduceStart(), b.reduceEnd()), data.get(i), "block " + b);
        }
        Await.until(Duration.ofSeconds(5), "every region to be released",
            () -> server.stats().openFiles() == 0);
        assertEquals(40_000L + (1 << 20) + 32_768, server.stats().zeroCopyBytes(),
            "only ranges of 32 KiB or more go through file regions");
      }
    }
  }

  private List<byte[]> fetchThrough(boolean epoll, String expectedTransport, List<BlockId> blocks)
      throws Exception {
    try (ShuffleServer server = new ShuffleServer(ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(nm)).useEpoll(epoll)
        .copyBelowBytes(0).build())) {
      server.start();
      assertEquals(expectedTransport, server.transport());
      server.registerApplication(APP, "alice", ShuffleServerTest.SECRET);
      try (ShuffleClient client = new ShuffleClient(APP, ShuffleServerTest.SECRET)) {
        List<byte[]> data = client.fetch("127.0.0.1", server.port(), blocks);
        long total = data.stream().mapToLong(b -> b.length).sum();
        Await.until(Duration.ofSeconds(5), "every region to be released",
            () -> server.stats().openFiles() == 0);
        assertEquals(total, server.stats().zeroCopyBytes(),
            "data bytes sent through file regions via " + expectedTransport);
        return data;
      }
    }
  }
}
