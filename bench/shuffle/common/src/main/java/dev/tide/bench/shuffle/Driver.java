package dev.tide.bench.shuffle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the whole benchmark: for each repetition, block size and server, starts the server JVM on
 * core 0 ({@code taskset -c 0}; it generates its data set in its own layout under
 * {@code target/data} the first time), then the load generator JVM on core 1, collects its RESULT
 * line, stops the server. Prints one table of all runs, the ratios of Tide to each peer, of
 * Tide on epoll to Tide on NIO and of Tide with checksums on to off within the same repetition,
 * the medians over the repetitions and their ratios, and optionally writes them as markdown.
 *
 * <p>Servers ({@link #SERVERS}): {@code tide} (NIO, segment checksums on and verified by the
 * client, as shipped), {@code tide-epoll} (the same server on native epoll; the run fails if it
 * does not really run epoll), {@code tide-nocrc} (tide with checksums off: its own data set,
 * indexed without segment checksums, and a client that verifies nothing), {@code spark} (4.1),
 * {@code spark35} (3.5), {@code hadoop}. {@code tide-nocrc} is not in the default list; name it.
 *
 * <p>Arguments (all optional, key=value): {@code base} (bench/shuffle dir), {@code servers}
 * (tide,tide-epoll,spark,spark35,hadoop), {@code sizes} (4096,65536,1048576), {@code reps} (5),
 * {@code warmup} (5 s), {@code measure} (10 s), {@code concurrency} (8), {@code maxRequests}
 * (2000000), {@code results} (markdown file to append the tables to; none if absent),
 * {@code serverCpu} (0), {@code clientCpu} (1).
 */
public final class Driver {
  static final String JVM_OPTS = "-Xms256m -Xmx1g"
      + " --add-opens=java.base/java.lang=ALL-UNNAMED"
      + " --add-opens=java.base/java.nio=ALL-UNNAMED"
      + " --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
      + " --add-opens=java.base/java.util=ALL-UNNAMED"
      + " -Dio.netty.tryReflectionSetAccessible=true";

  /**
   * How to start one server and its client: the Maven module whose classes and classpath.txt the
   * JVMs run with, the class-name prefix of its {@code <prefix>Server} / {@code <prefix>Client}
   * mains, the data directory (under target/data; servers with the same on-disk data share one
   * data set), the variant's options (key=value, given to both the server and the client), and
   * what the server must announce in its READY line (key=value; the run fails otherwise).
   */
  private record Server(String module, String mainPrefix, String data, List<String> options,
      Map<String, String> mustAnnounce) {}

  /** The servers that run when {@code servers=} is not given, in this order. */
  static final List<String> DEFAULT_SERVERS = List.of("tide", "tide-epoll", "spark", "spark35",
      "hadoop");

  static final Map<String, Server> SERVERS = new LinkedHashMap<>();

  static {
    String p = "dev.tide.bench.shuffle.";
    SERVERS.put("tide", new Server("tide", p + "tide.Tide", "tide",
        List.of("transport=nio", "checksums=on"), Map.of("transport", "nio", "checksums", "on")));
    SERVERS.put("tide-epoll", new Server("tide", p + "tide.Tide", "tide",
        List.of("transport=epoll", "checksums=on"),
        Map.of("transport", "epoll", "checksums", "on")));
    // tide.executor.shuffle.checksum.enabled=false: its own data set, indexed without segment checksums.
    SERVERS.put("tide-nocrc", new Server("tide", p + "tide.Tide", "tide-nocrc",
        List.of("transport=nio", "checksums=off"), Map.of("transport", "nio", "checksums", "off")));
    // tide.network.crypto.enabled=true on the client, tide.shuffle.crypto.required on the server.
    SERVERS.put("tide-crypto", new Server("tide", p + "tide.Tide", "tide",
        List.of("transport=nio", "checksums=on", "crypto=on"),
        Map.of("transport", "nio", "checksums", "on", "crypto", "required")));
    SERVERS.put("spark", new Server("spark", p + "spark.Spark", "spark", List.of(), Map.of()));
    // spark.network.crypto.enabled=true on both sides (AuthEngine instead of SASL).
    SERVERS.put("spark-crypto", new Server("spark", p + "spark.Spark", "spark",
        List.of("crypto=on"), Map.of("crypto", "on")));
    SERVERS.put("spark35-crypto", new Server("spark35", p + "spark.Spark", "spark",
        List.of("crypto=on"), Map.of("crypto", "on")));
    // The spark35 module compiles the spark module's sources against Spark 3.5.5; same layout.
    SERVERS.put("spark35", new Server("spark35", p + "spark.Spark", "spark", List.of(),
        Map.of()));
    SERVERS.put("hadoop", new Server("hadoop", p + "hadoop.Hadoop", "hadoop", List.of(),
        Map.of()));
  }

  private record Run(int rep, String server, int block, Map<String, String> r,
      Map<String, String> ready, String load) {
    double d(String k) {
      return Double.parseDouble(r.get(k));
    }
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    Path base = Path.of(a.getOrDefault("base", "bench/shuffle")).toAbsolutePath().normalize();
    List<String> servers = List.of(a.getOrDefault("servers", String.join(",", DEFAULT_SERVERS))
        .split(","));
    for (String server : servers) {
      if (!SERVERS.containsKey(server)) {
        throw new IllegalArgumentException("unknown server " + server + "; known: "
            + SERVERS.keySet());
      }
    }
    List<Integer> sizes = new ArrayList<>();
    for (String s : a.getOrDefault("sizes", "4096,65536,1048576").split(",")) {
      sizes.add(Integer.parseInt(s));
    }
    int reps = Integer.parseInt(a.getOrDefault("reps", "5"));
    String clientArgs = "serverCpu=" + a.getOrDefault("serverCpu", "0")
        + " clientCpu=" + a.getOrDefault("clientCpu", "1")
        + " concurrency=" + a.getOrDefault("concurrency", "8")
        + " warmup=" + a.getOrDefault("warmup", "5")
        + " measure=" + a.getOrDefault("measure", "10")
        + " maxRequests=" + a.getOrDefault("maxRequests", "2000000");
    String serverCpu = a.getOrDefault("serverCpu", "0");
    String clientCpu = a.getOrDefault("clientCpu", "1");
    Path logs = base.resolve("target/logs");
    Files.createDirectories(logs);

    String startLoad = loadavg();
    String started = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    List<Run> runs = new ArrayList<>();
    for (int rep = 1; rep <= reps; rep++) {
      for (int block : sizes) {
        // Odd repetitions run the servers in the given order, even ones in reverse, so that a
        // load that drifts during the run does not always favour the same server.
        List<String> order = new ArrayList<>(servers);
        if (rep % 2 == 0) {
          java.util.Collections.reverse(order);
        }
        for (String server : order) {
          String load = loadavg();
          System.err.printf(Locale.ROOT, "[bench] rep %d, %s, block %d B (load %s)%n", rep, server,
              block, load);
          Map<String, String> ready = new LinkedHashMap<>();
          Map<String, String> r = runOne(base, logs, server, block, rep, serverCpu, clientCpu,
              clientArgs, ready);
          runs.add(new Run(rep, server, block, r, ready, load));
          System.err.println("[bench]   " + summary(r) + (ready.isEmpty() ? "" : " " + ready));
        }
      }
    }
    String endLoad = loadavg();

    StringWriter sw = new StringWriter();
    PrintWriter out = new PrintWriter(sw);
    out.printf("Started %s; %d logical CPUs (%s); servers on CPU %s, clients on CPU %s.%n",
        started, Runtime.getRuntime().availableProcessors(), cpuModel(), serverCpu, clientCpu);
    out.printf("Load average (1/5/15 min) at start: %s; at end: %s.%n", startLoad, endLoad);
    out.printf("Client: %s; JVMs: java %s %s.%n%n", clientArgs, System.getProperty("java.version"),
        JVM_OPTS.split(" --")[0]);
    out.println("| rep | block | server | maps/req | requests | MB/s | blocks/s | p50 ms | p99 ms"
        + " | server CPU s/GB | client CPU s/GB | server RSS MB (end / max)"
        + " | CPU use server / client | core busy server / client | load 1m |");
    out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (Run run : runs) {
      out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %.1f | %.0f | %.2f | %.2f | %.3f |"
              + " %.3f | %.0f / %.0f | %.2f / %.2f | %.2f / %.2f | %s |%n",
          run.rep, size(run.block), run.server, run.r.get("mapsPerRequest"),
          run.r.get("requests"), run.d("mbps"), run.d("blocksps"), run.d("p50ms"), run.d("p99ms"),
          run.d("cpuSecPerGB"), run.d("clientCpuSecPerGB"), run.d("rssMB"), run.d("maxRssMB"),
          run.d("serverCpuUtil"), run.d("clientCpuUtil"), run.d("serverCoreBusy"),
          run.d("clientCoreBusy"), run.load.split(" ")[0]);
    }
    out.println();
    out.println("Client CPU s/GB = the load generator JVM's CPU-seconds per GB of block data"
        + " (receiving and checking the blocks; with Tide's checksums on, also their CRC32C);"
        + " wall time per GB = 1000 / MB/s.");
    out.println("CPU use = the server's / client's CPU-seconds per wall-second in the measured"
        + " phase (1.00 = a whole core); core busy = how busy the server's / client's core was"
        + " in that phase from /proc/stat, all processes (busy minus CPU use = other work on"
        + " that core). Load 1m = /proc/loadavg before the run. Latencies are per request (one"
        + " request = maps/req blocks of one reduce).");
    Map<String, java.util.Set<String>> announced = new LinkedHashMap<>();
    for (Run run : runs) {
      if (!run.ready.isEmpty()) {
        announced.computeIfAbsent(run.server, k -> new java.util.TreeSet<>())
            .add(String.join(" ", run.ready.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList()));
      }
    }
    if (!announced.isEmpty()) {
      StringBuilder t = new StringBuilder("What the servers announced when they started (Tide's"
          + " transport is ShuffleServer.transport(), its checksums whether its map outputs'"
          + " indexes hold segment checksums; both checked by the driver in every run):");
      announced.forEach((k, v) -> t.append(' ').append(k).append(' ').append(String.join(" ", v))
          .append(';'));
      out.println();
      out.println(t.substring(0, t.length() - 1) + ".");
    }
    out.println();
    List<String[]> ratios = ratioPairs(servers);
    out.println("Ratios a / b within the same repetition: Tide / each peer, tide-epoll / tide"
        + " (Tide on native epoll vs on NIO; both send file regions with sendfile, so epoll should"
        + " be no slower), and tide / tide-nocrc (segment checksums on vs off: the client's CRC32C"
        + " of every block, the server's longer indexes). Throughput: > 1 means a is faster;"
        + " latency, CPU/GB, RSS: < 1 means a is lower.");
    out.println();
    printRatioHeader(out, true);
    for (int rep = 1; rep <= reps; rep++) {
      for (int block : sizes) {
        for (String[] pair : ratios) {
          Run x = find(runs, rep, block, pair[0]);
          Run y = find(runs, rep, block, pair[1]);
          StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %d | %s | %s / %s |",
              rep, size(block), pair[0], pair[1]));
          for (String k : RATIO_KEYS) {
            row.append(String.format(Locale.ROOT, " %.2f |", x.d(k) / y.d(k)));
          }
          out.println(row);
        }
      }
    }
    if (reps > 1) {
      out.println();
      out.printf("Medians over the %d repetitions, and the ratios a / b of the medians:%n%n", reps);
      out.println("| block | server | MB/s | blocks/s | p50 ms | p99 ms | server CPU s/GB"
          + " | client CPU s/GB | server RSS MB |");
      out.println("|---|---|---|---|---|---|---|---|---|");
      for (int block : sizes) {
        for (String server : servers) {
          out.printf(Locale.ROOT, "| %s | %s | %.1f | %.0f | %.2f | %.2f | %.3f | %.3f | %.0f |%n",
              size(block), server, median(runs, server, block, "mbps"),
              median(runs, server, block, "blocksps"), median(runs, server, block, "p50ms"),
              median(runs, server, block, "p99ms"), median(runs, server, block, "cpuSecPerGB"),
              median(runs, server, block, "clientCpuSecPerGB"),
              median(runs, server, block, "rssMB"));
        }
      }
      if (!ratios.isEmpty()) {
        out.println();
        printRatioHeader(out, false);
        for (int block : sizes) {
          for (String[] pair : ratios) {
            StringBuilder row = new StringBuilder("| " + size(block) + " | " + pair[0] + " / "
                + pair[1] + " |");
            for (String k : RATIO_KEYS) {
              row.append(String.format(Locale.ROOT, " %.2f |",
                  median(runs, pair[0], block, k) / median(runs, pair[1], block, k)));
            }
            out.println(row);
          }
        }
      }
    }
    out.flush();
    System.out.print(sw);
    String results = a.get("results");
    if (results != null) {
      Path file = Path.of(results);
      Files.createDirectories(file.toAbsolutePath().getParent());
      StringBuilder cmd = new StringBuilder("bench/shuffle/run.sh");
      for (String arg : argv) {
        if (!arg.startsWith("base=")) {
          cmd.append(' ').append(arg);
        }
      }
      String section = "## Run started " + started + "\n\nCommand: `" + cmd + "`\n\n" + sw;
      if (Files.exists(file)) {
        Files.writeString(file, "\n" + section, java.nio.file.StandardOpenOption.APPEND);
      } else {
        Files.writeString(file, "# Shuffle benchmark results\n\n" + section);
      }
      System.err.println("[bench] wrote " + file);
    }
  }

  private static Map<String, String> runOne(Path base, Path logs, String server, int block, int rep,
      String serverCpu, String clientCpu, String clientArgs, Map<String, String> ready)
      throws Exception {
    Server spec = SERVERS.get(server);
    String cp = classpath(base, spec.module);
    Path dataDir = base.resolve("target/data/" + spec.data + "/" + block);
    String tag = server + "-" + block + "-rep" + rep;

    List<String> serverCmd = new ArrayList<>(List.of("taskset", "-c", serverCpu, "java"));
    serverCmd.addAll(List.of(JVM_OPTS.split(" ")));
    // e.g. a flight recording of the server: BENCH_SERVER_OPTS=-XX:StartFlightRecording=...
    String extra = System.getenv().getOrDefault("BENCH_SERVER_OPTS", "").trim()
        .replace("{tag}", tag);
    if (!extra.isEmpty()) {
      serverCmd.addAll(List.of(extra.split(" +")));
    }
    serverCmd.addAll(List.of("-cp", cp, spec.mainPrefix + "Server", "server=" + server,
        "dataDir=" + dataDir, "block=" + block));
    serverCmd.addAll(spec.options);
    Process srv = new ProcessBuilder(serverCmd)
        .redirectError(logs.resolve(tag + "-server.log").toFile()).start();
    try {
      BufferedReader srvOut = new BufferedReader(new InputStreamReader(srv.getInputStream(),
          StandardCharsets.UTF_8));
      String port = null;
      for (String line; (line = srvOut.readLine()) != null; ) {
        if (line.startsWith("READY ")) {
          // READY <port> [key=value ...]
          String[] f = line.substring(6).trim().split(" ");
          port = f[0];
          for (int i = 1; i < f.length; i++) {
            int eq = f[i].indexOf('=');
            ready.put(f[i].substring(0, eq), f[i].substring(eq + 1));
          }
          break;
        }
      }
      if (port == null) {
        srv.waitFor(10, TimeUnit.SECONDS);
        List<String> log = Files.readAllLines(logs.resolve(tag + "-server.log"));
        throw new IOException(server + " server exited before READY; see "
            + logs.resolve(tag + "-server.log") + "; it ends with:\n  "
            + String.join("\n  ", log.subList(Math.max(0, log.size() - 3), log.size())));
      }
      for (Map.Entry<String, String> must : spec.mustAnnounce.entrySet()) {
        if (!must.getValue().equals(ready.get(must.getKey()))) {
          throw new IOException(server + " server must run with " + must.getKey() + "="
              + must.getValue() + " but announced " + must.getKey() + "="
              + ready.get(must.getKey()) + "; see " + logs.resolve(tag + "-server.log"));
        }
      }
      Thread drain = new Thread(() -> {
        try {
          while (srvOut.readLine() != null) {
            // keep the pipe empty
          }
        } catch (IOException ignored) {
          // server gone
        }
      });
      drain.setDaemon(true);
      drain.start();
      new ProcessBuilder("sync").inheritIO().start().waitFor();

      List<String> clientCmd = new ArrayList<>(List.of("taskset", "-c", clientCpu, "java"));
      clientCmd.addAll(List.of(JVM_OPTS.split(" ")));
      clientCmd.addAll(List.of("-cp", cp, spec.mainPrefix + "Client", "server=" + server,
          "port=" + port, "serverPid=" + srv.pid(), "block=" + block));
      clientCmd.addAll(List.of(clientArgs.split(" ")));
      clientCmd.addAll(spec.options);
      Process cli = new ProcessBuilder(clientCmd)
          .redirectError(logs.resolve(tag + "-client.log").toFile()).start();
      String result = null;
      try (BufferedReader cliOut = new BufferedReader(new InputStreamReader(cli.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = cliOut.readLine()) != null; ) {
          if (line.startsWith("RESULT ")) {
            result = line;
          }
        }
      }
      if (!cli.waitFor(300, TimeUnit.SECONDS)) {
        cli.destroyForcibly();
      }
      if (result == null) {
        throw new IOException(server + " client failed (exit " + cli.exitValue() + "); see "
            + logs.resolve(tag + "-client.log"));
      }
      Map<String, String> r = new LinkedHashMap<>();
      for (String kv : result.substring(7).split(" ")) {
        int eq = kv.indexOf('=');
        r.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
      double totalCpuSecPerGB = Double.parseDouble(r.get("cpuSecPerGB"))
          + Double.parseDouble(r.get("clientCpuSecPerGB"));
      r.put("totalCpuSecPerGB", String.format(Locale.ROOT, "%.3f", totalCpuSecPerGB));
      return r;
    } finally {
      srv.destroy();
      if (!srv.waitFor(20, TimeUnit.SECONDS)) {
        srv.destroyForcibly();
      }
    }
  }

  /**
   * The metrics in the ratio tables, in column order; totalCpuSecPerGB (server + client) is added
   * by the driver to each run's results.
   */
  private static final List<String> RATIO_KEYS = List.of("mbps", "blocksps", "p50ms", "p99ms",
      "cpuSecPerGB", "clientCpuSecPerGB", "totalCpuSecPerGB", "rssMB");

  /** The header of a ratio table: per repetition, or of the medians (no rep column). */
  private static void printRatioHeader(PrintWriter out, boolean perRep) {
    String rep = perRep ? "| rep " : "";
    out.println(rep + "| block | a / b | MB/s | blocks/s | p50 | p99 | server CPU s/GB"
        + " | client CPU s/GB | server+client CPU s/GB | server RSS (end) |");
    out.println((perRep ? "|---" : "") + "|---".repeat(2 + RATIO_KEYS.size()) + "|");
  }

  /**
   * The ratios a / b to print, of the servers that ran: tide / each peer (spark, spark35, hadoop),
   * then tide-epoll / tide, then tide / tide-nocrc (checksums on / off).
   */
  private static List<String[]> ratioPairs(List<String> servers) {
    List<String[]> pairs = new ArrayList<>();
    if (servers.contains("tide")) {
      for (String peer : servers) {
        if (!peer.startsWith("tide") && !peer.endsWith("-crypto")) {
          pairs.add(new String[] {"tide", peer});
        }
      }
      if (servers.contains("tide-epoll")) {
        pairs.add(new String[] {"tide-epoll", "tide"});
      }
      if (servers.contains("tide-nocrc")) {
        pairs.add(new String[] {"tide", "tide-nocrc"});
      }
    }
    if (servers.contains("tide-crypto")) {
      if (servers.contains("tide")) {
        pairs.add(new String[] {"tide-crypto", "tide"});
      }
      for (String peer : servers) {
        if (peer.startsWith("spark") && peer.endsWith("-crypto")) {
          pairs.add(new String[] {"tide-crypto", peer});
        }
      }
    }
    return pairs;
  }

  private static Run find(List<Run> runs, int rep, int block, String server) {
    for (Run run : runs) {
      if (run.rep == rep && run.block == block && run.server.equals(server)) {
        return run;
      }
    }
    throw new IllegalStateException("no run of " + server + " in rep " + rep + ", block " + block);
  }

  private static String classpath(Path base, String moduleName) throws IOException {
    Path module = base.resolve(moduleName);
    return module.resolve("target/classes") + ":"
        + Files.readString(module.resolve("target/classpath.txt")).trim();
  }

  private static double median(List<Run> runs, String server, int block, String key) {
    double[] v = runs.stream().filter(r -> r.server.equals(server) && r.block == block)
        .mapToDouble(r -> r.d(key)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String summary(Map<String, String> r) {
    return String.format(Locale.ROOT, "%s MB/s, %s blocks/s, p50 %s ms, p99 %s ms, CPU s/GB"
            + " server %s client %s, RSS %s MB", r.get("mbps"), r.get("blocksps"), r.get("p50ms"),
        r.get("p99ms"), r.get("cpuSecPerGB"), r.get("clientCpuSecPerGB"), r.get("rssMB"));
  }

  private static String size(int block) {
    return block >= 1 << 20 ? (block >> 20) + " MiB" : (block >> 10) + " KiB";
  }

  private static String loadavg() throws IOException {
    String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
    return f[0] + " " + f[1] + " " + f[2];
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException ignored) {
      // not Linux
    }
    return "unknown CPU";
  }
}
