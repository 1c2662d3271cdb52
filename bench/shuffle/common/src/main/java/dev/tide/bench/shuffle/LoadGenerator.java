package dev.tide.bench.shuffle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client side of one run, the same for every server: {@code concurrency} threads each keep one
 * request outstanding (so the server sees {@code concurrency} outstanding requests), taking
 * requests in order from the shared sequence of {@link Workload#request}. A warm-up phase, then a
 * measured phase (counting every request that completes inside it) that ends after {@code measureSeconds} or {@code maxRequests}, whichever first.
 * During the measured phase it records each request's latency, samples the server's CPU time at
 * both ends (and its own, to show whether the client or the server is the bottleneck) and the
 * server's RSS every 100 ms, and finally prints one {@code RESULT key=value ...} line. CPU-seconds
 * per GB are reported for the server ({@code cpuSecPerGB}) and for this client JVM
 * ({@code clientCpuSecPerGB}: receiving, checking and, for Tide with checksums on, verifying the
 * blocks, plus the load generator's own small bookkeeping).
 */
public final class LoadGenerator {
  /** One server's client: fetch the blocks of maps [mapStart, mapEnd) for one reduce, check them. */
  public interface Fetcher extends AutoCloseable {
    /** @return bytes of block data received */
    long fetch(int reduce, int mapStart, int mapEnd) throws Exception;

    @Override
    default void close() throws Exception {}
  }

  private LoadGenerator() {}

  /** Parses the common client arguments: {@code key=value} pairs. */
  public static java.util.Map<String, String> args(String[] argv) {
    java.util.Map<String, String> m = new java.util.HashMap<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value, got " + a);
      }
      m.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return m;
  }

  public static void run(String server, Workload w, Fetcher fetcher,
      java.util.Map<String, String> a) throws Exception {
    long serverPid = Long.parseLong(a.get("serverPid"));
    int concurrency = Integer.parseInt(a.getOrDefault("concurrency", "8"));
    double warmupSeconds = Double.parseDouble(a.getOrDefault("warmup", "4"));
    double measureSeconds = Double.parseDouble(a.getOrDefault("measure", "10"));
    long maxRequests = Long.parseLong(a.getOrDefault("maxRequests", "2000000"));

    AtomicLong next = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // phase: 0 warm-up, 1 measured, 2 stop
    AtomicLong phase = new AtomicLong();
    AtomicLong measuredRequests = new AtomicLong();
    AtomicLong measuredBytes = new AtomicLong();
    List<long[]> latencies = new ArrayList<>();
    int[] counts = new int[concurrency];
    Thread[] threads = new Thread[concurrency];
    long perThreadCap = maxRequests / concurrency + 1;
    for (int t = 0; t < concurrency; t++) {
      long[] lat = new long[(int) Math.min(perThreadCap, 4_000_000)];
      latencies.add(lat);
      final int id = t;
      threads[t] = new Thread(() -> {
        try {
          while (phase.get() < 2 && failure.get() == null) {
            int[] req = w.request(next.getAndIncrement());
            long t0 = System.nanoTime();
            long bytes = fetcher.fetch(req[0], req[1], req[2]);
            long t1 = System.nanoTime();
            long expected = (long) (req[2] - req[1]) * w.blockSize();
            if (bytes != expected) {
              throw new IllegalStateException("got " + bytes + " bytes, expected " + expected);
            }
            if (phase.get() == 1) {
              if (counts[id] == lat.length || measuredRequests.incrementAndGet() > maxRequests) {
                phase.compareAndSet(1, 2);
                break;
              }
              lat[counts[id]++] = t1 - t0;
              measuredBytes.addAndGet(bytes);
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "load-" + t);
      threads[t].start();
    }
    sleepWhileRunning(warmupSeconds, phase, failure);
    check(failure);
    long rss0Kb = ProcStats.statusKb(serverPid, "VmRSS");
    double cpu0 = ProcStats.cpuSeconds(serverPid);
    long selfPid = ProcessHandle.current().pid();
    double selfCpu0 = ProcStats.cpuSeconds(selfPid);
    int serverCore = Integer.parseInt(a.getOrDefault("serverCpu", "0"));
    int clientCore = Integer.parseInt(a.getOrDefault("clientCpu", "1"));
    long[] sCore0 = ProcStats.cpuJiffies(serverCore);
    long[] cCore0 = ProcStats.cpuJiffies(clientCore);
    long start = System.nanoTime();
    phase.set(1);
    long maxRssKb = rss0Kb;
    long deadline = start + (long) (measureSeconds * 1e9);
    while (phase.get() == 1 && System.nanoTime() < deadline && failure.get() == null) {
      Thread.sleep(100);
      maxRssKb = Math.max(maxRssKb, ProcStats.statusKb(serverPid, "VmRSS"));
    }
    phase.set(2);
    long end = System.nanoTime();
    double cpu1 = ProcStats.cpuSeconds(serverPid);
    double selfCpu1 = ProcStats.cpuSeconds(selfPid);
    long[] sCore1 = ProcStats.cpuJiffies(serverCore);
    long[] cCore1 = ProcStats.cpuJiffies(clientCore);
    long rss1Kb = ProcStats.statusKb(serverPid, "VmRSS");
    maxRssKb = Math.max(maxRssKb, rss1Kb);
    for (Thread t : threads) {
      t.join(120_000);
    }
    check(failure);

    int n = 0;
    for (int c : counts) {
      n += c;
    }
    long[] all = new long[n];
    int k = 0;
    for (int t = 0; t < concurrency; t++) {
      System.arraycopy(latencies.get(t), 0, all, k, counts[t]);
      k += counts[t];
    }
    Arrays.sort(all);
    double seconds = (end - start) / 1e9;
    long bytes = measuredBytes.get();
    double gb = bytes / 1e9;
    System.out.println(String.format(Locale.ROOT,
        "RESULT server=%s block=%d maps=%d reduces=%d mapsPerRequest=%d concurrency=%d"
            + " seconds=%.3f requests=%d bytes=%d mbps=%.1f blocksps=%.0f p50ms=%.3f p99ms=%.3f"
            + " cpuSeconds=%.2f cpuSecPerGB=%.3f clientCpuSeconds=%.2f clientCpuSecPerGB=%.3f"
            + " rssMB=%.1f maxRssMB=%.1f serverCpuUtil=%.2f"
            + " clientCpuUtil=%.2f serverCoreBusy=%.2f clientCoreBusy=%.2f",
        server, w.blockSize(), w.maps(), w.reduces(), w.mapsPerRequest(), concurrency, seconds, n,
        bytes, bytes / 1e6 / seconds, bytes / (double) w.blockSize() / seconds,
        percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6, cpu1 - cpu0,
        gb > 0 ? (cpu1 - cpu0) / gb : Double.NaN, selfCpu1 - selfCpu0,
        gb > 0 ? (selfCpu1 - selfCpu0) / gb : Double.NaN, rss1Kb / 1024.0, maxRssKb / 1024.0,
        (cpu1 - cpu0) / seconds, (selfCpu1 - selfCpu0) / seconds,
        busy(sCore0, sCore1), busy(cCore0, cCore1)));
    System.out.flush();
  }

  private static void sleepWhileRunning(double seconds, AtomicLong phase,
      AtomicReference<Throwable> failure) throws InterruptedException {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < deadline && failure.get() == null) {
      Thread.sleep(50);
    }
  }

  private static void check(AtomicReference<Throwable> failure) throws Exception {
    Throwable t = failure.get();
    if (t != null) {
      if (t instanceof Exception e) {
        throw e;
      }
      throw new RuntimeException(t);
    }
  }

  private static double busy(long[] before, long[] after) {
    long total = after[1] - before[1];
    return total <= 0 ? Double.NaN : (after[0] - before[0]) / (double) total;
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
