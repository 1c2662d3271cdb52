package dev.tide.bench.shuffleload;

import dev.tide.shuffle.server.ServerStats;
import dev.tide.shuffle.server.ShuffleServer;
import dev.tide.shuffle.server.ShuffleServerConfig;
import io.netty.util.internal.PlatformDependent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server JVM: one ShuffleServer on 127.0.0.1, one registered application (two for the
 * hostile mix: the adversary's own, whose secret the adversary knows). Prints
 * {@code PORT <n>}, then answers each {@code STATS} line on stdin with one {@code STATS k=v ...}
 * line. Exits when stdin closes or after its time limit, whichever comes first.
 *
 * <p>Args: localDir appId user secretHex maxConnections timeLimitSeconds
 * [adversaryAppId adversarySecretHex]
 */
public final class ServerMain {
  public static void main(String[] args) throws Exception {
    Path localDir = Path.of(args[0]);
    String appId = args[1];
    String user = args[2];
    byte[] secret = HexFormat.of().parseHex(args[3]);
    int maxConnections = Integer.parseInt(args[4]);
    long timeLimitMs = Long.parseLong(args[5]) * 1000;

    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(timeLimitMs);
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("server: time limit reached, exiting");
      Runtime.getRuntime().halt(3);
    }, "time-limit");
    watchdog.setDaemon(true);
    watchdog.start();

    ShuffleServerConfig config = ShuffleServerConfig.builder()
        .bindHost("127.0.0.1").port(0).localDirs(List.of(localDir))
        .maxConnections(maxConnections).build();
    ServerStats stats = new ServerStats();
    try (ShuffleServer server = new ShuffleServer(config, stats)) {
      server.start();
      server.registerApplication(appId, user, secret);
      if (args.length > 7) {
        server.registerApplication(args[6], user, HexFormat.of().parseHex(args[7]));
      }
      AtomicLong directPeak = new AtomicLong();
      AtomicInteger connectionsPeak = new AtomicInteger();
      AtomicLong jvmDirectPeak = new AtomicLong();
      // Netty's own count of the direct memory it allocated (-1 when it does not count).
      AtomicLong nettyDirectPeak = new AtomicLong(-1);
      var directPool = java.lang.management.ManagementFactory
          .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
          .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
      Thread sampler = new Thread(() -> {
        while (true) {
          directPeak.accumulateAndGet(server.directMemoryInUse(), Math::max);
          connectionsPeak.accumulateAndGet(stats.openConnections(), Math::max);
          jvmDirectPeak.accumulateAndGet(directPool.getMemoryUsed(), Math::max);
          nettyDirectPeak.accumulateAndGet(PlatformDependent.usedDirectMemory(), Math::max);
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "sampler");
      sampler.setDaemon(true);
      sampler.start();
      System.out.println("PORT " + server.port() + " " + server.transport());
      System.out.flush();
      BufferedReader in = new BufferedReader(
          new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.equals("STATS")) {
          System.out.println("STATS"
              + " vmHwmKiB=" + status("VmHWM")
              + " vmRssKiB=" + status("VmRSS")
              + " directPeakBytes=" + directPeak.get()
              + " directNowBytes=" + server.directMemoryInUse()
              + " jvmDirectPeakBytes=" + jvmDirectPeak.get()
              + " nettyDirectPeakBytes=" + nettyDirectPeak.get()
              + " connectionsPeak=" + connectionsPeak.get()
              + " connectionsOpen=" + stats.openConnections()
              + " fetchesServed=" + stats.fetchesServed()
              + " fetchesFailed=" + stats.fetchesFailed()
              + " bytesServed=" + stats.bytesServed()
              + " authFailures=" + stats.authFailures()
              + " busyReplies=" + stats.busyReplies()
              + " connectionsRefused=" + stats.connectionsRefused()
              + " internalErrors=" + stats.internalErrors()
              + " threads=" + Thread.activeCount());
          System.out.flush();
        }
      }
    }
  }

  /** A field of /proc/self/status in KiB, -1 if unavailable. */
  static long status(String field) throws IOException {
    for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (l.startsWith(field + ":")) {
        return Long.parseLong(l.substring(field.length() + 1).trim().split("\\s+")[0]);
      }
    }
    return -1;
  }

  private ServerMain() {}
}
