package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The start latency estimate the policies ask ahead by. */
class StartLatencyTest {
  private static StartLatency measured(long... millis) {
    StartLatency latency = new StartLatency();
    for (long m : millis) {
      latency.measured(m);
    }
    return latency;
  }

  @Test
  void beforeAnyStartItAssumesThreeSeconds() {
    StartLatency latency = new StartLatency();
    assertFalse(latency.isMeasured());
    assertEquals(StartLatency.ASSUMED_MILLIS, latency.millis());
  }

  @Test
  void itAnswersThe75thPercentileOfTheStartsMeasured() {
    assertTrue(measured(1200).isMeasured());
    assertEquals(1200, measured(1200).millis());
    assertEquals(300, measured(400, 100, 300, 200).millis());
    assertEquals(700, measured(500, 900, 800, 100, 700, 600, 200, 300, 400).millis());
  }

  @Test
  void oneSlowStartAmongManyDoesNotMoveTheEstimate() {
    assertEquals(1000, measured(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 60_000)
        .millis());
  }

  @Test
  void onlyTheLast32StartsCount() {
    StartLatency latency = new StartLatency();
    for (int i = 0; i < 32; i++) {
      latency.measured(10_000);
    }
    for (int i = 0; i < 31; i++) {
      latency.measured(500);
    }
    assertEquals(500, latency.millis(), "31 of the last 32 starts took 500 ms");
    latency.measured(500);
    for (int i = 0; i < 8; i++) {
      latency.measured(9_000);
    }
    assertEquals(500, latency.millis(), "8 slow of the last 32: the 75th percentile is fast");
    latency.measured(9_000);
    assertEquals(9_000, latency.millis(), "9 slow of the last 32: it is slow");
  }

  @Test
  void aNegativeMeasurementCountsAsZero() {
    assertEquals(0, measured(-5).millis());
  }
}
