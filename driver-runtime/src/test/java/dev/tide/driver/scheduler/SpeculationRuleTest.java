package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tide.driver.conf.TideOptions;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Spark's straggler rule, on times the test chooses. */
class SpeculationRuleTest {
  private final SpeculationRule rule = new SpeculationRule(0.75, 1.5, 500);

  @Test
  void noStragglerBeforeTheQuantileOfTasksSucceeded() {
    // 8 tasks: 6 (floor of 0.75 x 8) must have succeeded; 5 have.
    assertEquals(List.of(), rule.stragglers(8, new long[] {1000, 1000, 1000, 1000, 1000},
        List.of(new SpeculationRule.RunningTask(5, 0)), 100_000));
  }

  @Test
  void aTaskRunningLongerThanTheMultipleOfTheMedianIsAStraggler() {
    long[] succeeded = {800, 1000, 1200}; // median 1000: threshold 1500
    List<SpeculationRule.RunningTask> running = List.of(
        new SpeculationRule.RunningTask(3, 10_000), new SpeculationRule.RunningTask(2, 9_000));
    assertEquals(List.of(new SpeculationRule.Straggler(2, 1_501, 1_500)),
        rule.stragglers(4, succeeded, running, 10_501));
    assertEquals(List.of(new SpeculationRule.Straggler(3, 1_600, 1_500),
        new SpeculationRule.Straggler(2, 2_600, 1_500)),
        rule.stragglers(4, succeeded, running, 11_600));
    // An even count's median is the mean of the middle two: (1000 + 2000) / 2 x 1.5 = 2250.
    assertEquals(List.of(new SpeculationRule.Straggler(2, 2_251, 2_250)), rule.stragglers(3,
        new long[] {1000, 2000}, List.of(new SpeculationRule.RunningTask(2, 0)), 2_251));
  }

  @Test
  void shortTasksAreNotSpeculatedBeforeTheMinimumRunTime() {
    long[] succeeded = {10, 10, 10};
    List<SpeculationRule.RunningTask> running = List.of(new SpeculationRule.RunningTask(3, 0));
    assertEquals(List.of(), rule.stragglers(4, succeeded, running, 500));
    assertEquals(List.of(new SpeculationRule.Straggler(3, 501, 500)),
        rule.stragglers(4, succeeded, running, 501));
  }

  @Test
  void aOneTaskStageWaitsForItsOwnTaskAndTheRuleIsOffByDefault() {
    assertEquals(List.of(), rule.stragglers(1, new long[0],
        List.of(new SpeculationRule.RunningTask(0, 0)), 1_000_000));
    assertNull(SpeculationRule.from(new Configuration(false)));
    Configuration on = new Configuration(false);
    on.setBoolean(TideOptions.SPECULATION.key(), true);
    assertEquals(List.of(new SpeculationRule.Straggler(3, 1_501, 1_500)),
        SpeculationRule.from(on).stragglers(4, new long[] {1000, 1000, 1000},
            List.of(new SpeculationRule.RunningTask(3, 0)), 1_501));
  }
}
