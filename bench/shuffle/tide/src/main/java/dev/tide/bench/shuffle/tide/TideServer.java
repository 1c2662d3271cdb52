package dev.tide.bench.shuffle.tide;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.MapOutputIndex;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.server.ShuffleServer;
import dev.tide.shuffle.server.ShuffleServerConfig;
import io.netty.channel.epoll.Epoll;
import io.netty.util.Version;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Tide's tide_shuffle server, standalone, with the settings the NodeManager adapter uses by
 * default (2 I/O threads, 2 disk threads, NIO transport), on loopback; with {@code transport=epoll}
 * (server {@code tide-epoll}) the same server on Netty's native epoll transport
 * ({@code tide.shuffle.epoll.enabled=true} in the NodeManager). The server announces the transport
 * it really runs ({@link ShuffleServer#transport()}) in its READY line and refuses to start if
 * that is not the one asked for (ShuffleServer itself falls back to NIO when epoll is unavailable).
 *
 * <p>Data:
 * {@code <dataDir>/nm-local/usercache/<user>/appcache/<app>/tide-shuffle/0/<map>.data|.index},
 * committed with {@link MapOutputCommitter} as an executor would. With {@code checksums=on} (the
 * default; servers {@code tide}, {@code tide-epoll}) the index holds each segment's CRC32C, as
 * map tasks write it with {@code tide.executor.shuffle.checksum.enabled=true}, and every FETCH_REPLY
 * carries the blocks' checksums; with {@code checksums=off} (server {@code tide-nocrc}) the index
 * has none and replies carry -1. The server reads back the index of map 0 and announces what it
 * holds ({@code checksums=on|off}), refusing to start if that is not what was asked for. With
 * {@code crypto=on} (server {@code tide-crypto}) it refuses clients that do not encrypt
 * ({@code tide.shuffle.crypto.required}) and announces {@code crypto=required}.
 */
public final class TideServer {
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    Path dataDir = Path.of(a.get("dataDir"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")), Integer.MAX_VALUE);
    String user = System.getProperty("user.name");
    Path nmLocal = dataDir.resolve("nm-local");
    boolean checksums = onOff(a.getOrDefault("checksums", "on"), "checksums");
    Path appDir = ShuffleLayout.appLocalDir(nmLocal, user, DataSets.APP_ID);
    DataSets.ensure(dataDir, w, "segment checksums " + (checksums ? "on" : "off"), dir -> {
      for (int m = 0; m < w.maps(); m++) {
        Path tmp = MapOutputCommitter.tempDataFile(appDir, 0, m, 0);
        Workload.MapData data = w.writeMapData(tmp, m);
        if (!MapOutputCommitter.commit(appDir, 0, m, tmp, data.lengths(),
            checksums ? data.checksums() : null)) {
          throw new IllegalStateException("map " + m + " already committed");
        }
      }
    });
    Path index0 = ShuffleLayout.indexFile(appDir, 0, 0);
    boolean indexedChecksums = MapOutputIndex.decode(Files.readAllBytes(index0), index0.toString())
        .hasChecksums();
    if (indexedChecksums != checksums) {
      throw new IllegalStateException("asked for checksums=" + (checksums ? "on" : "off")
          + " but the index " + index0 + (indexedChecksums ? " has" : " has no")
          + " segment checksums; delete " + dataDir + " to regenerate it");
    }
    boolean crypto = onOff(a.getOrDefault("crypto", "off"), "crypto");
    String transport = a.getOrDefault("transport", "nio");
    if (!transport.equals("nio") && !transport.equals("epoll")) {
      throw new IllegalArgumentException("transport must be nio or epoll, got " + transport);
    }
    ShuffleServerConfig config = ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(nmLocal))
        .useEpoll(transport.equals("epoll")).cryptoRequired(crypto).build();
    ShuffleServer server = new ShuffleServer(config);
    server.registerApplication(DataSets.APP_ID, user, DataSets.SECRET);
    server.start();
    String actual = server.transport();
    System.err.println("[server] tide_shuffle transport: " + actual);
    if (!actual.equals(transport)) {
      server.close();
      throw new IllegalStateException("asked for the " + transport + " transport, the server runs "
          + actual + (transport.equals("epoll")
          ? " (native epoll unavailable: " + Epoll.unavailabilityCause() + ")" : ""));
    }
    System.out.println("READY " + server.port() + " transport=" + actual + " checksums="
        + (indexedChecksums ? "on" : "off") + " crypto=" + (crypto ? "required" : "optional")
        + " netty="
        + Version.identify().get("netty-transport").artifactVersion());
    System.out.flush();
    DataSets.awaitTermination();
  }

  private static boolean onOff(String value, String key) {
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException(key + " must be on or off, got " + value);
    }
    return value.equals("on");
  }
}
