package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.network.testing.CapturedLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ThrottledLogTest {
  private static final String LOGGER = "dev.tide.test.ThrottledLogTest";
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ThrottledLog log = new ThrottledLog(LoggerFactory.getLogger(LOGGER),
      Duration.ofSeconds(10), nanos::get);

  private void advanceSeconds(long s) {
    nanos.addAndGet(Duration.ofSeconds(s).toNanos());
  }

  @Test
  void firstOfAnIntervalIsLoggedTheRestCountedInOneLine() {
    try (CapturedLog captured = new CapturedLog(LOGGER)) {
      for (int i = 1; i <= 1000; i++) {
        log.warn("refusals", "refused connection {}", i);
      }
      assertEquals(List.of("WARN refused connection 1"), captured.lines());
      advanceSeconds(9);
      log.flush();
      assertEquals(1, captured.lines().size(), "the interval has not ended");
      advanceSeconds(1);
      log.flush();
      assertEquals(List.of("WARN refused connection 1", "WARN 999 more refusals in the 10000 ms"
          + " since the last line; the last: refused connection 1000"), captured.lines());
      log.flush();
      assertEquals(2, captured.lines().size(), "a count is written once");
      log.warn("refusals", "refused connection {}", 1001);
      assertEquals("WARN refused connection 1001", captured.lines().get(2));
    }
  }

  @Test
  void kindsAreCountedApartAndACountComesWithTheNextLine() {
    try (CapturedLog captured = new CapturedLog(LOGGER)) {
      log.info("idle", "idle {}", 1);
      log.warn("malformed", "malformed {}", 1);
      log.info("idle", "idle {}", 2);
      log.info("idle", "idle {}", 3);
      advanceSeconds(11);
      log.info("idle", "idle {}", 4);
      assertEquals(List.of("INFO idle 1", "WARN malformed 1",
          "INFO 2 more idle in the 11000 ms since the last line; the last: idle 3",
          "INFO idle 4"), captured.lines());
    }
  }
}
