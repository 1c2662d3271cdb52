package dev.tide.bench.shuffleload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ServerMain} JVM as the load generator sees it: starts it, reads its port, asks it
 * for {@code STATS} with a timeout (a drowned or dead server answers nothing, which is a result,
 * not a reason for the bench to hang), and samples its peak RSS ({@code VmHWM} of
 * {@code /proc/<pid>/status}) from outside every 100 ms, so the peak survives the process.
 * Stops it on {@link #close()}: stdin closed, then killed after 10 s. Thread-safe.
 */
final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final PrintStream toServer;
  private final BlockingQueue<String> statsLines = new LinkedBlockingQueue<>();
  private final AtomicLong peakRssKiB = new AtomicLong(-1);
  private final long startedNanos = System.nanoTime();
  private volatile long exitedNanos;
  private final int port;
  private final String transport;

  private ServerProcess(Process process, int port, String transport, BufferedReader fromServer) {
    this.process = process;
    this.port = port;
    this.transport = transport;
    this.toServer = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    process.onExit().thenRun(() -> exitedNanos = System.nanoTime());
    daemon("server-stdout", () -> {
      try {
        for (String line; (line = fromServer.readLine()) != null; ) {
          if (line.startsWith("STATS ")) {
            statsLines.add(line);
          }
        }
      } catch (IOException e) {
        // the server is gone; stats() times out
      }
    });
    daemon("server-rss", () -> {
      Path status = Path.of("/proc", String.valueOf(process.pid()), "status");
      while (process.isAlive()) {
        try {
          for (String l : Files.readAllLines(status)) {
            if (l.startsWith("VmHWM:")) {
              peakRssKiB.accumulateAndGet(
                  Long.parseLong(l.substring(6).trim().split("\\s+")[0]), Math::max);
            }
          }
          Thread.sleep(100);
        } catch (IOException | RuntimeException e) {
          return; // exited between isAlive and the read
        } catch (InterruptedException e) {
          return;
        }
      }
    });
  }

  /**
   * Starts {@code java jvmOptions ServerMain args} with this JVM's class path and waits for its
   * {@code PORT} line.
   *
   * @param stderr where the server's stderr goes; null to share the bench's
   */
  static ServerProcess start(List<String> jvmOptions, List<String> args, Path stderr)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ServerMain.class.getName());
    cmd.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(cmd);
    builder.redirectError(stderr == null ? ProcessBuilder.Redirect.INHERIT
        : ProcessBuilder.Redirect.to(stderr.toFile()));
    Process process = builder.start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String first = out.readLine();
    if (first == null || !first.startsWith("PORT ")) {
      process.destroyForcibly();
      throw new IOException("server did not start: " + first);
    }
    String[] parts = first.split(" ");
    return new ServerProcess(process, Integer.parseInt(parts[1]), parts[2], out);
  }

  int port() {
    return port;
  }

  String transport() {
    return transport;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code, or empty while it runs. */
  Optional<Integer> exitCode() {
    return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
  }

  /** Seconds from the PORT line to the process's exit; NaN while it runs. */
  double secondsToExit() {
    long exited = exitedNanos;
    return exited == 0 ? Double.NaN : (exited - startedNanos) / 1e9;
  }

  /** The highest VmHWM seen, in KiB; -1 if never read. */
  long peakRssKiB() {
    return peakRssKiB.get();
  }

  /** The server's {@code STATS} (see {@link ServerMain}), or empty if it did not answer in time. */
  synchronized Optional<Map<String, String>> stats(Duration timeout) throws InterruptedException {
    if (!process.isAlive()) {
      return Optional.empty();
    }
    statsLines.clear(); // a late answer to an earlier request
    toServer.println("STATS");
    String line = statsLines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      return Optional.empty();
    }
    Map<String, String> m = new HashMap<>();
    for (String kv : line.substring(6).split(" ")) {
      int eq = kv.indexOf('=');
      m.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return Optional.of(m);
  }

  /** Stops the server: stdin closed (it exits), killed if still running after 10 s. */
  @Override
  public void close() throws InterruptedException {
    toServer.close();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }
}
