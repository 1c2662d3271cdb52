package dev.tide.driver.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RateScheduleTest {
  @Test
  void stepsHoldEachRateFromItsTime() {
    RateSchedule s = RateSchedule.parse("1000@0s, 4000@120s,1500@300s");
    assertEquals(1000, s.rateAt(119.9));
    assertEquals(4000, s.rateAt(120));
    assertEquals(1500, s.rateAt(1000));
    assertEquals(120_000 + 180 * 4000 + 100 * 1500, s.recordsUntil(400_000));
    assertEquals(1, s.recordsUntil(1));
  }

  @Test
  void rampAndSineCountTheirIntegralExactly() {
    RateSchedule ramp = RateSchedule.parse("ramp(1000,3000,10s)");
    assertEquals(20_000, ramp.recordsUntil(10_000)); // mean 2000 over 10 s
    assertEquals(20_000 + 3000 * 5, ramp.recordsUntil(15_000));
    RateSchedule sine = RateSchedule.parse("sine(2000,1000,60s)");
    assertEquals(120_000, sine.recordsUntil(60_000)); // one whole period: the mean
    assertEquals(3000, sine.rateAt(15), 1e-6);
    // A numeric integral of the rate agrees with the closed form within a record.
    double sum = 0;
    for (int ms = 0; ms < 37_000; ms++) {
      sum += sine.rateAt((ms + 0.5) / 1000.0) / 1000.0;
    }
    assertEquals(sum, sine.recordsUntil(37_000), 1.0);
  }

  @Test
  void countsNeverShrinkSoIdsAreNeverReused() {
    RateSchedule s = RateSchedule.parse("sine(500,500,7s)");
    long last = 0;
    for (long t = 0; t < 30_000; t += 250) {
      long n = s.recordsUntil(t);
      assertTrue(n >= last, "at " + t);
      last = n;
    }
  }

  @Test
  void aBadScheduleSaysWhatOneLooksLike() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RateSchedule.parse("fast"));
    assertTrue(e.getMessage().contains("tide.streaming.rate.schedule = 'fast'"), e.getMessage());
    assertTrue(e.getMessage().contains("1000@0s"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RateSchedule.parse("1@5s,2@3s"));
    assertThrows(IllegalArgumentException.class, () -> RateSchedule.parse("sine(10,20,5s)"));
  }
}
