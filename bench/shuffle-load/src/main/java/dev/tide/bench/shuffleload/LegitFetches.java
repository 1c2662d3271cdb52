package dev.tide.bench.shuffleload;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The legitimate side of the load test: {@code connections} {@link ShuffleClient}s (one
 * connection and one IO thread each) that each fetch once, wait until every one of them has
 * (then {@code atAllConnected} runs, e.g. to read the server's connection count), then make the
 * remaining {@code fetches - 1} fetches of {@code blocks} random blocks, checking every byte and
 * timing every fetch. A fetch not finished by the deadline counts as failed ("unfinished at the
 * time limit"); the run never waits past the deadline. Called from one thread.
 */
final class LegitFetches {
  /** The shape of the work. */
  record Settings(String appId, byte[] secret, int port, int connections, int fetches,
      int blocks, int maps, int reduces, int segment, int shuffleId) {}

  /**
   * What happened.
   *
   * @param together whether every connection had made its first fetch before the deadline
   * @param failuresByKind failed fetches by {@code ShuffleFetchException} reason (or exception
   *     class), each with the count and the first message seen
   * @param okLatencyNanos the duration of every successful fetch, sorted
   */
  record Outcome(boolean together, double secondsToAllConnected, long ok, long failed,
      long bytes, double seconds, Map<String, Failure> failuresByKind, long[] okLatencyNanos) {
    /** The q-quantile (0..1) of the successful fetches' latency in ms; NaN if none. */
    double latencyMillis(double q) {
      if (okLatencyNanos.length == 0) {
        return Double.NaN;
      }
      int i = (int) Math.ceil(q * okLatencyNanos.length) - 1;
      return okLatencyNanos[Math.max(0, Math.min(okLatencyNanos.length - 1, i))] / 1e6;
    }
  }

  /** Failed fetches of one kind. */
  record Failure(long count, String firstMessage) {}

  private LegitFetches() {}

  static Outcome run(Settings s, long deadlineNanos, Runnable atAllConnected)
      throws InterruptedException {
    ShuffleClientConfig config = new ShuffleClientConfig(Duration.ofSeconds(30),
        Duration.ofSeconds(30), Duration.ofSeconds(60), 1 << 24, 1, 10, Duration.ofSeconds(2));
    AtomicLong ok = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    Map<String, String> firstMessages = new ConcurrentHashMap<>();
    long[] latency = new long[s.connections() * s.fetches()];
    CountDownLatch allConnected = new CountDownLatch(s.connections());
    CountDownLatch statsTaken = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(s.connections());
    List<ShuffleClient> clients = new ArrayList<>();
    List<Future<?>> done = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < s.connections(); c++) {
      ShuffleClient client = new ShuffleClient(s.appId(), s.secret(), config);
      clients.add(client);
      int connection = c;
      done.add(pool.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int f = 0; f < s.fetches(); f++) {
          if (System.nanoTime() > deadlineNanos) {
            failures.computeIfAbsent("time limit", k -> new AtomicLong())
                .addAndGet(s.fetches() - f);
            allConnected.countDown();
            return null;
          }
          List<BlockId> ask = new ArrayList<>();
          for (int b = 0; b < s.blocks(); b++) {
            ask.add(BlockId.of(s.shuffleId(), random.nextInt(s.maps()),
                random.nextInt(s.reduces())));
          }
          long began = System.nanoTime();
          try {
            List<byte[]> got = client.fetch("127.0.0.1", s.port(), ask);
            long took = System.nanoTime() - began;
            for (int b = 0; b < ask.size(); b++) {
              BlockId id = ask.get(b);
              if (!Arrays.equals(got.get(b),
                  LoadTest.segmentBytes(id.mapId(), id.reduceStart(), s.segment()))) {
                throw new IOException("wrong bytes for " + id);
              }
              bytes.addAndGet(got.get(b).length);
            }
            latency[connection * s.fetches() + f] = Math.max(1, took);
            ok.incrementAndGet();
          } catch (Exception e) {
            String kind = e instanceof ShuffleFetchException sfe ? sfe.reason().name()
                : e.getClass().getSimpleName();
            failures.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            firstMessages.putIfAbsent(kind, String.valueOf(e.getMessage()));
          }
          if (f == 0) {
            // Hold the (now authenticated) connection until every client has one.
            allConnected.countDown();
            statsTaken.await(Math.max(1, deadlineNanos - System.nanoTime()),
                TimeUnit.NANOSECONDS);
          }
        }
        return null;
      }));
    }
    boolean together = allConnected.await(Math.max(1, deadlineNanos - System.nanoTime()),
        TimeUnit.NANOSECONDS);
    double toConnect = (System.nanoTime() - start) / 1e9;
    atAllConnected.run();
    statsTaken.countDown();
    for (Future<?> f : done) {
      try {
        f.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        break;
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("a fetch loop failed", e.getCause());
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    // Snapshot before closing: fetches cut short by the close are "unfinished", not failures.
    long okNow = ok.get();
    long bytesNow = bytes.get();
    Map<String, Failure> byKind = new TreeMap<>();
    failures.forEach((k, v) -> byKind.put(k, new Failure(v.get(), firstMessages.get(k))));
    long[] okLatency = Arrays.stream(latency.clone()).filter(x -> x > 0).sorted().toArray();
    long failed = byKind.values().stream().mapToLong(Failure::count).sum();
    long unfinished = (long) s.connections() * s.fetches() - okNow - failed;
    if (unfinished > 0) {
      byKind.put("unfinished at the time limit", new Failure(unfinished,
          "still fetching, or waiting for the others' first fetch, at the deadline"));
    }
    pool.shutdownNow();
    for (ShuffleClient client : clients) {
      client.close();
    }
    return new Outcome(together, toConnect, okNow, failed + Math.max(0, unfinished), bytesNow,
        seconds, byKind, okLatency);
  }
}
