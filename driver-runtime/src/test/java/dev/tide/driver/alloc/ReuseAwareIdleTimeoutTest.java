package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The adaptive idle timeout: learnt from when idle executors were needed again. */
class ReuseAwareIdleTimeoutTest {
  private static final long CEILING = 60_000;
  /** A cold start: 2 x 3 s. */
  private static final long LATENCY = 3_000;

  private final ManualClock clock = new ManualClock(1_000_000);
  private final ReuseAwareIdleTimeout timeout = new ReuseAwareIdleTimeout(CEILING);

  private void observe(List<IdleExecutor> idle, List<String> removed, int targetRise) {
    timeout.observe(clock.millis(), idle, removed, targetRise);
  }

  /** Executor {@code id} goes idle now and gets a task again {@code gapMillis} later. */
  private void reusedAfter(String id, long gapMillis) {
    observe(List.of(new IdleExecutor(id, clock.millis())), List.of(), 0);
    clock.advanceMillis(gapMillis);
    observe(List.of(), List.of(), 0);
  }

  @Test
  void withNothingLearntItIsOneColdStartCappedAtTheCeiling() {
    assertEquals(6_000, timeout.timeoutMillis(LATENCY));
    assertEquals(CEILING, timeout.timeoutMillis(40_000));
  }

  /** Reused after 4 s every time: waiting 4 s costs less than a 6 s start. */
  @Test
  void executorsReusedSoonAreKeptJustLongEnough() {
    for (int i = 0; i < 5; i++) {
      reusedAfter("e" + i, 4_000);
    }

    assertEquals(5, timeout.gapsRecorded());
    assertEquals(4_000, timeout.timeoutMillis(LATENCY));
    assertEquals(0, timeout.timeoutMillis(1_000), "a 2 s start is cheaper than a 4 s wait");
  }

  @Test
  void anExecutorIdleAgainSinceALaterTimeRanATaskInBetween() {
    long first = clock.millis();
    observe(List.of(new IdleExecutor("e", first)), List.of(), 0);
    clock.advanceMillis(5_000);
    observe(List.of(new IdleExecutor("e", first + 2_000)), List.of(), 0);

    assertEquals(1, timeout.gapsRecorded());
    assertEquals(5_000, timeout.timeoutMillis(LATENCY), "reused after 5 s");
  }

  /** Released executors nobody needed within the ceiling: keeping them was pure cost. */
  @Test
  void executorsNeverNeededAgainAfterReleaseTeachATimeoutOfZero() {
    long since = clock.millis();
    List<IdleExecutor> idle = List.of(new IdleExecutor("a", since), new IdleExecutor("b", since));
    observe(idle, List.of(), 0);
    clock.advanceMillis(6_000);
    observe(idle, List.of("a", "b"), 0);
    clock.advanceMillis(CEILING);
    observe(List.of(), List.of(), 0);

    assertEquals(2, timeout.gapsRecorded());
    assertEquals(0, timeout.timeoutMillis(LATENCY));
  }

  /** A rise of the target after a release is a reuse, counted from when the executor went idle. */
  @Test
  void aReleasedExecutorMatchedToALaterRiseIsAGap() {
    long since = clock.millis();
    observe(List.of(new IdleExecutor("a", since)), List.of("a"), 0);
    clock.advanceMillis(3_000);
    observe(List.of(), List.of(), 1);

    assertEquals(1, timeout.gapsRecorded());
    assertEquals(3_000, timeout.timeoutMillis(LATENCY));
  }
}
