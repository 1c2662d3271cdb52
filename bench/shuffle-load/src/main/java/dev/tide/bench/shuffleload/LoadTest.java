package dev.tide.bench.shuffleload;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load generator: writes the map outputs, starts {@link ServerMain} in its own JVM, opens
 * {@code connections} authenticated connections at once (one {@link ShuffleClient} each, one IO
 * thread each), holds them all open together, then has every connection fetch
 * {@code fetches} requests of {@code blocks} random blocks and checks every byte. Prints the
 * figures and exits non-zero if any fetch failed, fewer connections than asked were open at
 * once, or the time limit was hit.
 *
 * <p>Args (key=value): connections=1000 fetches=10 blocks=4 maps=64 reduces=32 segment=8192
 * timeLimit=180 (seconds, whole run) serverHeap=256m dir=target/load
 */
public final class LoadTest {
  private static final String APP = "application_1700000000000_0001";
  private static final String USER = "bench";
  private static final int SHUFFLE = 0;

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String s : argv) {
      int eq = s.indexOf('=');
      a.put(s.substring(0, eq), s.substring(eq + 1));
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

    System.out.printf("machine: %d CPUs, load average before: %s%n",
        Runtime.getRuntime().availableProcessors(), loadAverage());
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + serverHeap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        ServerMain.class.getName(), localDir.toString(), APP, USER,
        HexFormat.of().formatHex(secret), String.valueOf(connections + 100),
        String.valueOf(timeLimit + 30));
    Process server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    int exit = 1;
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      PrintStream toServer = new PrintStream(server.getOutputStream(), true,
          StandardCharsets.UTF_8);
      String first = out.readLine();
      if (first == null || !first.startsWith("PORT ")) {
        throw new IOException("server did not start: " + first);
      }
      int port = Integer.parseInt(first.split(" ")[1]);
      System.out.println("server: pid " + server.pid() + ", port " + port + ", transport "
          + first.split(" ")[2]);
      exit = run(connections, fetches, blocks, maps, reduces, segment, secret, port, deadline,
          out, toServer);
    } finally {
      server.getOutputStream().close();
      if (!server.waitFor(10, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
    System.exit(exit);
  }

  private static int run(int connections, int fetches, int blocks, int maps, int reduces,
      int segment, byte[] secret, int port, long deadline, BufferedReader fromServer,
      PrintStream toServer) throws Exception {
    ShuffleClientConfig config = new ShuffleClientConfig(Duration.ofSeconds(30),
        Duration.ofSeconds(30), Duration.ofSeconds(60), 1 << 24, 1, 10, Duration.ofSeconds(2));
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    Map<String, AtomicLong> failures = new java.util.concurrent.ConcurrentHashMap<>();
    CountDownLatch allConnected = new CountDownLatch(connections);
    CountDownLatch statsTaken = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(connections);
    List<ShuffleClient> clients = new ArrayList<>();
    long start = System.nanoTime();
    long[] connectedAt = new long[1];
    List<Future<?>> done = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      ShuffleClient client = new ShuffleClient(APP, secret, config);
      clients.add(client);
      done.add(pool.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int f = 0; f < fetches; f++) {
          if (System.nanoTime() > deadline) {
            failed.incrementAndGet();
            failures.computeIfAbsent("time limit", k -> new AtomicLong()).incrementAndGet();
            break;
          }
          List<BlockId> ask = new ArrayList<>();
          for (int b = 0; b < blocks; b++) {
            int reduce = random.nextInt(reduces);
            ask.add(BlockId.of(SHUFFLE, random.nextInt(maps), reduce));
          }
          try {
            List<byte[]> got = client.fetch("127.0.0.1", port, ask);
            for (int b = 0; b < ask.size(); b++) {
              BlockId id = ask.get(b);
              if (!java.util.Arrays.equals(got.get(b),
                  segmentBytes(id.mapId(), id.reduceStart(), segment))) {
                throw new IOException("wrong bytes for " + id);
              }
              bytes.addAndGet(got.get(b).length);
            }
            ok.incrementAndGet();
          } catch (Exception e) {
            failed.incrementAndGet();
            failures.computeIfAbsent(e.getClass().getSimpleName() + ": " + e.getMessage(),
                k -> new AtomicLong()).incrementAndGet();
          }
          if (f == 0) {
            // Hold the (now authenticated) connection until every client has one.
            allConnected.countDown();
            try {
              statsTaken.await(Math.max(1, deadline - System.nanoTime()),
                  TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
        }
      }));
    }
    boolean together = allConnected.await(Math.max(1, deadline - System.nanoTime()),
        TimeUnit.NANOSECONDS);
    connectedAt[0] = System.nanoTime();
    Map<String, String> atPeak = stats(fromServer, toServer);
    statsTaken.countDown();
    for (Future<?> f : done) {
      f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    long end = System.nanoTime();
    pool.shutdown();
    for (ShuffleClient client : clients) {
      client.close();
    }
    Thread.sleep(500);
    Map<String, String> after = stats(fromServer, toServer);

    System.out.printf("connections: %d asked, all open and authenticated together: %s "
        + "(%.1f s to connect all); server open connections at that moment: %s, peak: %s%n",
        connections, together, (connectedAt[0] - start) / 1e9, atPeak.get("connectionsOpen"),
        after.get("connectionsPeak"));
    System.out.printf("fetches: %d ok, %d failed, %d blocks of %d B each request x %d; "
        + "%.1f MiB in %.1f s%n", ok.get(), failed.get(), blocks, segment, fetches,
        bytes.get() / 1048576.0, (end - start) / 1e9);
    failures.forEach((k, v) -> System.out.println("  failure x" + v + ": " + k));
    System.out.printf("server peak RSS (VmHWM): %.1f MiB; RSS now: %.1f MiB%n",
        Long.parseLong(after.get("vmHwmKiB")) / 1024.0,
        Long.parseLong(after.get("vmRssKiB")) / 1024.0);
    System.out.printf("server direct memory (pooled allocator): peak %.1f MiB sampled every "
        + "20 ms, %.1f MiB at all-connected, %.1f MiB after close%n",
        Long.parseLong(after.get("directPeakBytes")) / 1048576.0,
        Long.parseLong(atPeak.get("directNowBytes")) / 1048576.0,
        Long.parseLong(after.get("directNowBytes")) / 1048576.0);
    System.out.printf("server JVM direct buffer pool (BufferPoolMXBean \"direct\"): peak %.1f MiB%n",
        Long.parseLong(after.get("jvmDirectPeakBytes")) / 1048576.0);
    System.out.println("server counters: fetchesServed=" + after.get("fetchesServed")
        + " fetchesFailed=" + after.get("fetchesFailed") + " authFailures="
        + after.get("authFailures") + " busyReplies=" + after.get("busyReplies")
        + " connectionsRefused=" + after.get("connectionsRefused") + " internalErrors="
        + after.get("internalErrors") + " threads=" + atPeak.get("threads"));
    System.out.printf("machine load average after: %s%n", loadAverage());
    boolean pass = together && failed.get() == 0
        && Integer.parseInt(after.get("connectionsPeak")) >= connections
        && "0".equals(after.get("internalErrors"));
    System.out.println(pass ? "RESULT: PASS" : "RESULT: FAIL");
    return pass ? 0 : 1;
  }

  private static Map<String, String> stats(BufferedReader in, PrintStream out)
      throws IOException {
    out.println("STATS");
    String line = in.readLine();
    if (line == null || !line.startsWith("STATS ")) {
      throw new IOException("server answered " + line);
    }
    Map<String, String> m = new HashMap<>();
    for (String kv : line.substring(6).split(" ")) {
      int eq = kv.indexOf('=');
      m.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return m;
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

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private LoadTest() {}
}
