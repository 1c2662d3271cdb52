package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.time.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which idle executors go, and how many may. */
class IdleRemovalTest {
  private static final long TIMEOUT = 60_000;
  private static final long CACHED_TIMEOUT = 300_000;

  private final ManualClock clock = new ManualClock(1_000_000);

  private List<String> choose(int active, int floor, IdleExecutor... idle) {
    return IdleRemoval.choose(clock.millis(), active, floor, List.of(idle), TIMEOUT,
        CACHED_TIMEOUT);
  }

  private IdleExecutor idleFor(String id, long millis) {
    return new IdleExecutor(id, clock.millis() - millis);
  }

  @Test
  void onlyExecutorsIdleForTheTimeoutGoLongestIdleFirst() {
    assertEquals(List.of("c", "a"), choose(5, 0, idleFor("a", 60_000), idleFor("b", 59_999),
        idleFor("c", 90_000)));
  }

  @Test
  void equallyIdleExecutorsGoInIdOrder() {
    assertEquals(List.of("x1", "x2"), choose(5, 0, idleFor("x2", 70_000),
        idleFor("x1", 70_000)));
  }

  @Test
  void executorsHoldingCachedBlocksWaitForTheCachedTimeout() {
    IdleExecutor cached = new IdleExecutor("cached", clock.millis() - 120_000, true);
    assertEquals(List.of("plain"), choose(5, 0, cached, idleFor("plain", 60_000)));
    clock.advanceMillis(180_000);
    assertEquals(List.of("cached"), choose(5, 0, cached));
  }

  @Test
  void neverSoManyThatTheActiveExecutorsDropBelowTheFloor() {
    IdleExecutor[] idle = {idleFor("a", 80_000), idleFor("b", 70_000), idleFor("c", 65_000)};
    assertEquals(List.of("a", "b"), choose(6, 4, idle));
    assertEquals(List.of(), choose(4, 4, idle));
    assertEquals(List.of(), choose(3, 4, idle));
  }

  @Test
  void nothingIdleNothingRemoved() {
    assertEquals(List.of(), choose(5, 0));
  }
}
