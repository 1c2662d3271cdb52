package dev.tide.bench.shuffleload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The hostile mix of issue 17: the legitimate fetches of {@link LegitFetches} while
 * {@link HostilePeers} attack the same server. The server JVM logs {@code dev.tide} at INFO to
 * {@code <dir>/server.log} (its stderr to {@code server-stderr.log}) and has its direct memory
 * capped, so a drowned server ends in an OutOfMemoryError, not in the machine swapping; a server
 * that dies or stops answering is reported as such, with the last figures it gave. The peers
 * start {@code lead} seconds before the legitimate clients and stop when those are done; the
 * legitimate fetches end {@code 25 s} before the time limit so the report is always printed.
 * PASS means no legitimate fetch failed.
 *
 * <p>Args (key=value, beside those of {@link LoadTest}): nonreaders=4 partialHellos=300
 * badIds=200 notFoundRequests=50 resets=2500 idle=2000 idleAtOnce=500 stall=12 (seconds a
 * partial HELLO or idle connection is held; above the server's 10 s handshake timeout) lead=5
 * maxConnections=2048 (the server's default) serverDirect=1g (-XX:MaxDirectMemorySize)
 */
final class HostileMix {
  static final String ADVERSARY_APP = "application_1700000000000_0666";
  /** Logs above this are cut to their first this-many bytes once counted. */
  private static final long KEEP_LOG_BYTES = 16L << 20;
  private static final long REPORT_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(25);

  private final Map<String, String> a;
  private final Path dir;
  private final Path localDir;
  private final String serverHeap;
  private final long timeLimit;
  private final long deadline;

  HostileMix(Map<String, String> settings, Path dir, Path localDir, String serverHeap,
      long timeLimit, long deadline) {
    this.a = settings;
    this.dir = dir;
    this.localDir = localDir;
    this.serverHeap = serverHeap;
    this.timeLimit = timeLimit;
    this.deadline = deadline;
  }

  /** Runs the mix and prints the report; returns the exit code (0 on PASS). */
  int run(LegitFetches.Settings legit) throws Exception {
    byte[] adversarySecret = new byte[32];
    ThreadLocalRandom.current().nextBytes(adversarySecret);
    HostilePeers.Settings hostile = new HostilePeers.Settings(number("nonreaders", 4),
        number("partialHellos", 300), number("badIds", 200), number("notFoundRequests", 50),
        number("resets", 2500), number("idle", 2000), number("idleAtOnce", 500),
        number("stall", 12) * 1000L, ADVERSARY_APP, adversarySecret);
    int lead = number("lead", 5);
    Path log = dir.resolve("server.log");
    Path stderr = dir.resolve("server-stderr.log");
    Files.deleteIfExists(log);
    Files.deleteIfExists(dir.resolve("server.log.head"));
    List<String> jvm = List.of("-Xmx" + serverHeap,
        "-XX:MaxDirectMemorySize=" + a.getOrDefault("serverDirect", "1g"), "-XX:+UseSerialGC",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-Dorg.slf4j.simpleLogger.log.dev.tide=info",
        "-Dorg.slf4j.simpleLogger.logFile=" + log,
        "-Dorg.slf4j.simpleLogger.showDateTime=true",
        "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    List<String> args = List.of(localDir.toString(), legit.appId(), LoadTest.USER,
        HexFormat.of().formatHex(legit.secret()), a.getOrDefault("maxConnections", "2048"),
        String.valueOf(timeLimit + 30), ADVERSARY_APP, HexFormat.of().formatHex(adversarySecret));
    System.out.printf("hostile mix: nonreaders=%d partialHellos=%d badIds=%d notFoundRequests=%d"
        + " resets=%d idle=%d (%d at once), held %d ms; legitimate clients start after %d s%n",
        hostile.nonreaders(), hostile.partialHellos(), hostile.badIds(),
        hostile.notFoundRequests(), hostile.resets(), hostile.idle(), hostile.idleAtOnce(),
        hostile.stallMillis(), lead);

    ServerProcess server = ServerProcess.start(jvm, args, stderr);
    long started = System.nanoTime();
    System.out.println("server: pid " + server.pid() + ", port " + server.port()
        + ", transport " + server.transport() + ", log " + log);
    AtomicReference<Map<String, String>> lastStats = new AtomicReference<>(Map.of());
    Thread poller = new Thread(() -> {
      try {
        while (!Thread.currentThread().isInterrupted() && server.isAlive()) {
          server.stats(Duration.ofSeconds(2)).ifPresent(lastStats::set);
          Thread.sleep(1000);
        }
      } catch (InterruptedException e) {
        // stopped
      }
    }, "stats-poller");
    poller.setDaemon(true);
    poller.start();

    HostilePeers peers = new HostilePeers(hostile, server.port());
    LegitFetches.Outcome o;
    Map<String, Long> attacks;
    boolean survived;
    String death = "";
    Optional<Map<String, String>> last;
    String[] atAllConnected = {"?"};
    try {
      peers.start();
      Thread.sleep(TimeUnit.SECONDS.toMillis(lead));
      o = LegitFetches.run(LoadTest.withPort(legit, server.port()),
          deadline - REPORT_MARGIN_NANOS, () -> atAllConnected[0] = openConnections(server));
    } finally {
      attacks = peers.counters();
      peers.stop();
      poller.interrupt();
      Thread.sleep(500);
      last = server.stats(Duration.ofSeconds(10));
      survived = server.isAlive() && last.isPresent();
      death = server.exitCode().map(c -> String.format("exit code %d %.1f s after it started",
          c, server.secondsToExit())).orElse("alive but no answer; killed");
      last.ifPresent(lastStats::set);
      server.close();
    }
    double runSeconds = (System.nanoTime() - started) / 1e9;
    Map<String, String> s = lastStats.get();

    System.out.printf("legit connections: %d, first fetch of every one done together: %s "
        + "(%.1f s); server open connections at that moment: %s%n", legit.connections(),
        o.together(), o.secondsToAllConnected(), atAllConnected[0]);
    System.out.printf("legit fetches: %d ok, %d failed (of %d), %d blocks of %d B each; "
        + "%.1f MiB in %.1f s%n", o.ok(), o.failed(), (long) legit.connections()
        * legit.fetches(), legit.blocks(), legit.segment(), o.bytes() / 1048576.0, o.seconds());
    LoadTest.printFailures(o);
    System.out.printf("legit fetch latency (ok fetches): p50 %.1f ms, p99 %.1f ms, "
        + "max %.1f ms%n", o.latencyMillis(0.5), o.latencyMillis(0.99), o.latencyMillis(1));
    System.out.println("server survived: " + (survived ? "yes (alive, answered STATS at the end)"
        : "NO (" + death + "; figures below are its last answer)"));
    System.out.printf("server peak RSS (VmHWM, read from outside every 100 ms): %.1f MiB%n",
        server.peakRssKiB() / 1024.0);
    if (!s.isEmpty()) {
      System.out.printf("server direct memory (pooled allocator): peak %.1f MiB sampled every "
          + "20 ms; JVM direct buffer pool (BufferPoolMXBean \"direct\") peak %.1f MiB; Netty's "
          + "own direct counter: %s%n", LoadTest.mib(s.get("directPeakBytes")),
          LoadTest.mib(s.get("jvmDirectPeakBytes")), s.get("nettyDirectPeakBytes").equals("-1")
              ? "not kept (buffers are JDK direct buffers, counted in the pool)"
              : String.format("peak %.1f MiB", LoadTest.mib(s.get("nettyDirectPeakBytes"))));
      System.out.println(LoadTest.counters(s) + " connectionsPeak=" + s.get("connectionsPeak"));
    }
    printLog(ServerLog.read(log), runSeconds);
    ServerLog err = ServerLog.read(stderr);
    System.out.printf("server stderr: %d lines, %d B, lines mentioning OutOfMemoryError: %d%n",
        err.lines(), err.bytes(), err.outOfMemoryLines());
    Path kept = ServerLog.trim(log, KEEP_LOG_BYTES);
    ServerLog.trim(stderr, KEEP_LOG_BYTES);
    System.out.println("server log kept: " + kept);
    List<String> peerCounts = new ArrayList<>();
    attacks.forEach((k, v) -> peerCounts.add(k + "=" + v));
    System.out.println("hostile peers: " + String.join(" ", peerCounts));
    System.out.printf("machine load average after: %s%n", LoadTest.loadAverage());
    boolean pass = o.failed() == 0;
    System.out.println(pass ? "RESULT: PASS" : "RESULT: FAIL");
    return pass ? 0 : 1;
  }

  private static String openConnections(ServerProcess server) {
    try {
      return server.stats(Duration.ofSeconds(5)).map(m -> m.get("connectionsOpen"))
          .orElse("no answer");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private static void printLog(ServerLog log, double runSeconds) {
    System.out.printf("server log (dev.tide at INFO, rest at WARN): %d lines, %.1f MiB in "
        + "%.0f s (%.2f MiB/s); longest line %d B: \"%s\"%n", log.lines(),
        log.bytes() / 1048576.0, runSeconds, log.bytes() / 1048576.0 / runSeconds,
        log.longestLine(), printable(log.longestLineStart(), 100));
    log.recordsByLevelAndLogger().forEach((k, v) -> System.out.println("  records " + k
        + ": " + v));
    System.out.printf("  lines not starting a record: %d (forged by the bad ids' newlines: %d); "
        + "NUL bytes %d, CR bytes %d, ESC bytes %d; lines mentioning OutOfMemoryError: %d%n",
        log.linesNotStartingARecord(), log.forgedLines(), log.nulBytes(), log.crBytes(),
        log.escBytes(), log.outOfMemoryLines());
  }

  /** Control characters shown as \xNN, cut to {@code max} characters. */
  private static String printable(String s, int max) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < max; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return b.toString();
  }

  private int number(String key, int byDefault) {
    return Integer.parseInt(a.getOrDefault(key, String.valueOf(byDefault)));
  }
}
