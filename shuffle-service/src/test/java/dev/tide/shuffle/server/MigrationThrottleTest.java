package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The migration pace with a manual clock: waits are asked of a sleeper that moves the clock. */
class MigrationThrottleTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);
  private final List<Long> waits = new ArrayList<>();
  private final ServerStats stats = new ServerStats();
  /** 1 MB/s: a byte takes 1000 ns. */
  private final MigrationThrottle throttle = new MigrationThrottle(1_000_000, now::get, nanos -> {
    waits.add(nanos);
    now.addAndGet(nanos);
  }, stats);

  @Test
  void piecesGoAtTheRateWithoutABurst() throws Exception {
    long start = now.get();
    for (int i = 0; i < 10; i++) {
      throttle.acquire(100_000);
    }
    // The first piece goes at once, each next one when the one before had its 100 ms.
    assertEquals(9, waits.size());
    waits.forEach(w -> assertEquals(100_000_000L, w));
    assertEquals(900_000_000L, now.get() - start);
    assertEquals(900_000_000L, stats.migrationThrottledNanos());
    // 1 MB in 0.9 s of waits + the last piece's own 0.1 s: 1 MB/s.
  }

  @Test
  void timeNotUsedIsNotSavedUp() throws Exception {
    throttle.acquire(100_000);
    now.addAndGet(10_000_000_000L); // idle for 10 s
    throttle.acquire(100_000);
    throttle.acquire(100_000);
    assertEquals(List.of(100_000_000L), waits, "after idling, only one piece goes free");
  }

  @Test
  void aSenderSlowerThanTheRateIsNotHeldBack() throws Exception {
    for (int i = 0; i < 5; i++) {
      throttle.acquire(1_000);
      now.addAndGet(2_000_000); // 2 ms per 1 kB piece: 0.5 MB/s
    }
    assertEquals(List.of(), waits);
  }
}
