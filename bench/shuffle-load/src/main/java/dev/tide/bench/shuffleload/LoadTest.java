package dev.tide.bench.shuffleload;

import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The load generator: writes the map outputs, starts {@link ServerMain} in its own JVM
 * ({@link ServerProcess}), opens {@code connections} authenticated connections at once
 * ({@link LegitFetches}), holds them all open together, then has every connection fetch
 * {@code fetches} requests of {@code blocks} random blocks and checks every byte. Prints the
 * figures and exits non-zero if any fetch failed, fewer connections than asked were open at
 * once, or the time limit was hit.
 *
 * <p>With {@code mix=hostile} the same legitimate fetches run while {@link HostilePeers} attack
 * the server (issue 17), which then logs {@code dev.tide} at INFO to a file; see
 * {@link HostileMix}.
 *
 * <p>Args (key=value): mix=default connections=1000 fetches=10 blocks=4 maps=64 reduces=32
 * segment=8192 timeLimit=180 (seconds, whole run) serverHeap=256m dir=target/load, and for the
 * hostile mix those of {@link HostileMix}
 */
public final class LoadTest {
  static final String APP = "application_1700000000000_0001";
  static final String USER = "bench";
  static final int SHUFFLE = 0;

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String s : argv) {
      int eq = s.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("expected key=value, got " + s);
      }
      a.put(s.substring(0, eq), s.substring(eq + 1));
    }
    String mix = a.getOrDefault("mix", "default");
    if (!mix.equals("default") && !mix.equals("hostile")) {
      throw new IllegalArgumentException("mix must be default or hostile, got " + mix);
    }
    int connections = Integer.parseInt(a.getOrDefault("connections", "1000"));
    int fetches = Integer.parseInt(a.getOrDefault("fetches", "10"));
    int blocks = Integer.parseInt(a.getOrDefault("blocks", "4"));
    int maps = Integer.parseInt(a.getOrDefault("maps", "64"));
    int reduces = Integer.parseInt(a.getOrDefault("reduces", "32"));
    int segment = Integer.parseInt(a.getOrDefault("segment", "8192"));
    long timeLimit = Long.parseLong(a.getOrDefault("timeLimit", "180"));
    String serverHeap = a.getOrDefault("serverHeap", "256m");
    Path dir = Path.of(a.getOrDefault("dir", "target/load")).toAbsolutePath();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeLimit);

    byte[] secret = new byte[32];
    ThreadLocalRandom.current().nextBytes(secret);
    Path localDir = dir.resolve("nm-local");
    writeMapOutputs(localDir, maps, reduces, segment);
    LegitFetches.Settings legit = new LegitFetches.Settings(APP, secret, 0, connections, fetches,
        blocks, maps, reduces, segment, SHUFFLE);

    System.out.printf("machine: %d CPUs, load average before: %s%n",
        Runtime.getRuntime().availableProcessors(), loadAverage());
    if (mix.equals("hostile")) {
      System.exit(new HostileMix(a, dir, localDir, serverHeap, timeLimit, deadline)
          .run(legit));
    }
    List<String> jvm = List.of("-Xmx" + serverHeap, "-XX:+UseSerialGC",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    List<String> args = List.of(localDir.toString(), APP, USER,
        HexFormat.of().formatHex(secret), String.valueOf(connections + 100),
        String.valueOf(timeLimit + 30));
    int exit;
    try (ServerProcess server = ServerProcess.start(jvm, args, null)) {
      System.out.println("server: pid " + server.pid() + ", port " + server.port()
          + ", transport " + server.transport());
      exit = run(withPort(legit, server.port()), deadline, server);
    }
    System.exit(exit);
  }

  static LegitFetches.Settings withPort(LegitFetches.Settings s, int port) {
    return new LegitFetches.Settings(s.appId(), s.secret(), port, s.connections(), s.fetches(),
        s.blocks(), s.maps(), s.reduces(), s.segment(), s.shuffleId());
  }

  private static int run(LegitFetches.Settings legit, long deadline, ServerProcess server)
      throws Exception {
    Map<String, String>[] atPeak = new Map[1];
    LegitFetches.Outcome o = LegitFetches.run(legit, deadline, () -> atPeak[0] = stats(server));
    Thread.sleep(500);
    Map<String, String> after = stats(server);

    System.out.printf("connections: %d asked, all open and authenticated together: %s "
        + "(%.1f s to connect all); server open connections at that moment: %s, peak: %s%n",
        legit.connections(), o.together(), o.secondsToAllConnected(),
        atPeak[0].get("connectionsOpen"), after.get("connectionsPeak"));
    System.out.printf("fetches: %d ok, %d failed, %d blocks of %d B each request x %d; "
        + "%.1f MiB in %.1f s%n", o.ok(), o.failed(), legit.blocks(), legit.segment(),
        legit.fetches(), o.bytes() / 1048576.0, o.seconds());
    printFailures(o);
    System.out.printf("fetch latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
        o.latencyMillis(0.5), o.latencyMillis(0.99), o.latencyMillis(1));
    System.out.printf("server peak RSS (VmHWM): %.1f MiB; RSS now: %.1f MiB%n",
        Long.parseLong(after.get("vmHwmKiB")) / 1024.0,
        Long.parseLong(after.get("vmRssKiB")) / 1024.0);
    System.out.printf("server direct memory (pooled allocator): peak %.1f MiB sampled every "
        + "20 ms, %.1f MiB at all-connected, %.1f MiB after close%n",
        mib(after.get("directPeakBytes")), mib(atPeak[0].get("directNowBytes")),
        mib(after.get("directNowBytes")));
    System.out.printf("server JVM direct buffer pool (BufferPoolMXBean \"direct\"): peak %.1f MiB%n",
        mib(after.get("jvmDirectPeakBytes")));
    System.out.println(counters(after) + " threads=" + atPeak[0].get("threads"));
    System.out.printf("machine load average after: %s%n", loadAverage());
    boolean pass = o.together() && o.failed() == 0
        && Integer.parseInt(after.get("connectionsPeak")) >= legit.connections()
        && "0".equals(after.get("internalErrors"));
    System.out.println(pass ? "RESULT: PASS" : "RESULT: FAIL");
    return pass ? 0 : 1;
  }

  private static Map<String, String> stats(ServerProcess server) {
    try {
      return server.stats(Duration.ofSeconds(30))
          .orElseThrow(() -> new IllegalStateException("the server did not answer STATS"));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  static void printFailures(LegitFetches.Outcome o) {
    o.failuresByKind().forEach((kind, f) -> System.out.println("  failure x" + f.count() + ": "
        + kind + " (first: " + f.firstMessage() + ")"));
  }

  static String counters(Map<String, String> stats) {
    return "server counters: fetchesServed=" + stats.get("fetchesServed")
        + " fetchesFailed=" + stats.get("fetchesFailed") + " authFailures="
        + stats.get("authFailures") + " busyReplies=" + stats.get("busyReplies")
        + " connectionsRefused=" + stats.get("connectionsRefused") + " internalErrors="
        + stats.get("internalErrors");
  }

  static double mib(String bytes) {
    return Long.parseLong(bytes) / 1048576.0;
  }

  /** Partition {@code reduce} of map {@code map}: length bytes derived from both. */
  static byte[] segmentBytes(int map, int reduce, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (map * 31 + reduce * 7 + i);
    }
    return b;
  }

  private static void writeMapOutputs(Path localDir, int maps, int reduces, int segment)
      throws IOException {
    Path appDir = ShuffleLayout.appLocalDir(localDir, USER, APP);
    for (int m = 0; m < maps; m++) {
      if (Files.exists(ShuffleLayout.indexFile(appDir, SHUFFLE, m))) {
        continue;
      }
      Path temp = MapOutputCommitter.tempDataFile(appDir, SHUFFLE, m, 1);
      long[] lengths = new long[reduces];
      try (OutputStream out = Files.newOutputStream(temp)) {
        for (int r = 0; r < reduces; r++) {
          out.write(segmentBytes(m, r, segment));
          lengths[r] = segment;
        }
      }
      MapOutputCommitter.commit(appDir, SHUFFLE, m, temp, lengths);
    }
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private LoadTest() {}
}
