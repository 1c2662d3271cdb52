package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.AllocationSettings.RampUpMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How far each ramp-up raises the target at a ramp-up point. */
class RampUpTest {
  /** A backlog of {@code pending} tasks of {@code taskMillis}, two slots an executor. */
  private static RampUp.Backlog backlog(int pending, long taskMillis, long latencyMillis,
      int starting, double arrivalsPerSecond, boolean sustained) {
    return new RampUp.Backlog(pending, 2, taskMillis, latencyMillis, starting, arrivalsPerSecond,
        sustained);
  }

  @Test
  void theExponentialRampAddsTheStep() {
    assertEquals(13, new ExponentialRampUp().raise(5, 8, 3));
    assertEquals(13, new ExponentialRampUp().raise(5, 8, 3, backlog(1, 1, 1, 0, 0, false)));
  }

  @ParameterizedTest(name = "base {0}, step {1}, active {2}, grantable {3}: {4}")
  @CsvSource({
      "5, 2, 4, 10, 14",
      "5, 2, 4, 0, 7",
      "5, 8, 4, 3, 13",
      "5, 2, 4, -3, 7"})
  void theHeadroomRampAsksForWhatTheQueueCanGrantButNeverLessThanTheStep(int base, int step,
      int active, int grantable, long expected) {
    assertEquals(expected, new HeadroomRampUp(() -> grantable).raise(base, step, active));
  }

  @Test
  void anUnlimitedHeadroomDoesNotOverflow() {
    assertEquals(3L + Integer.MAX_VALUE,
        new HeadroomRampUp(ClusterHeadroom.UNLIMITED).raise(1, 1, 3));
  }

  @Test
  void theBacklogRampAsksNothingForABacklogThatDrainsBeforeAnExecutorCouldStart() {
    RampUp ramp = new BacklogRampUp(() -> 20);
    // 4 executors x 2 slots at 100 ms a task drain 8 tasks in 100 ms, well within 3 s.
    assertEquals(4, ramp.raise(4, 1, 4, backlog(8, 100, 3_000, 0, 0, false)));
  }

  @Test
  void theBacklogRampAsksForTheHeadroomAtOnceWhenTheBacklogOutlastsAStart() {
    RampUp ramp = new BacklogRampUp(() -> 20);
    // 8 slots at 10 s a task: 400 tasks take 500 s.
    assertEquals(24, ramp.raise(4, 1, 4, backlog(400, 10_000, 3_000, 0, 0, false)));
    // The same short backlog as above, but it outlived the last point: it did not drain.
    assertEquals(24, ramp.raise(4, 1, 4, backlog(8, 100, 3_000, 0, 0, true)));
    // Nothing is known of the tasks' run time: no evidence that they are short.
    assertEquals(24, ramp.raise(4, 1, 4, backlog(8, 0, 3_000, 0, 0, false)));
  }

  @Test
  void theBacklogRampAsksForOneMoreWhenTheQueueIsFull() {
    assertEquals(5, new BacklogRampUp(() -> 0).raise(4, 1, 4,
        backlog(400, 10_000, 3_000, 0, 0, false)));
    assertEquals(5, new BacklogRampUp(() -> 0).raise(4, 1, 4), "without a backlog: the step");
  }

  @Test
  void aBacklogOutlastsAStartWhenNoExecutorIsThereOrComing() {
    assertTrue(backlog(1, 0, 3_000, 0, 0, false).outlastsStart(0));
    assertFalse(backlog(1, 0, 3_000, 1, 0, false).outlastsStart(0),
        "one coming, run time unknown");
  }

  /** 2 executors x 2 slots at 1 s a task run 4 tasks a second. */
  @ParameterizedTest(name = "{0} pending, {1} arriving/s, start {2} ms: {3}")
  @CsvSource({
      "8, 0, 3000, false",
      "8, 0, 1000, true",
      "8, 3, 3000, true",
      "1, 4, 3000, true",
      "4, 2, 3000, false"})
  void whetherABacklogOutlastsAStartFollowsItsDrainRate(int pending, double arrivals,
      long latency, boolean outlasts) {
    assertEquals(outlasts, backlog(pending, 1_000, latency, 1, arrivals, false)
        .outlastsStart(1));
  }

  @Test
  void eachModeNamesItsRamp() {
    ClusterHeadroom headroom = () -> 1;
    assertInstanceOf(ExponentialRampUp.class, RampUp.of(RampUpMode.EXPONENTIAL, headroom));
    assertEquals("headroom", RampUp.of(RampUpMode.HEADROOM, headroom).toString());
    assertEquals("backlog", RampUp.of(RampUpMode.BACKLOG, headroom).toString());
    assertEquals("exponential", RampUp.of(RampUpMode.EXPONENTIAL, headroom).toString());
  }
}
