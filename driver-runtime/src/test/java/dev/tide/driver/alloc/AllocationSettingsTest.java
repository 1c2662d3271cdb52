package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.AllocationSettings.RampUpMode;
import java.math.BigDecimal;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class AllocationSettingsTest {
  private static Configuration conf(String... keyValues) {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }

  /** The message a user sees for a bad setting names the key and the value. */
  private static void rejected(String expectedKey, String expectedValue, String... keyValues) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AllocationSettings.from(conf(keyValues)));
    assertTrue(e.getMessage().contains(expectedKey), e.getMessage());
    assertTrue(e.getMessage().contains(expectedValue), e.getMessage());
  }

  @Test
  void defaultsAreThoseOfTheDesign() {
    AllocationSettings s = AllocationSettings.from(conf());
    assertTrue(s.enabled());
    assertEquals(0, s.minExecutors());
    assertEquals(Integer.MAX_VALUE, s.maxExecutors());
    assertEquals(0, s.initialExecutors());
    assertEquals(1.0, s.idleAllowance());
    assertEquals(1, s.tasksPerExecutor());
    assertEquals(0, s.executorAllocationRatio().compareTo(BigDecimal.ONE));
    assertEquals(1_000, s.schedulerBacklogTimeoutMillis());
    assertEquals(1_000, s.sustainedSchedulerBacklogTimeoutMillis());
    assertEquals(60_000, s.executorIdleTimeoutMillis());
    assertEquals(120_000, s.cachedExecutorIdleTimeoutMillis());
    assertEquals(RampUpMode.BACKLOG, s.rampUp());
    assertEquals(AllocationSettings.Rules.ALL, s.rules());
  }

  @Test
  void eachRuleHasItsOwnSwitch() {
    AllocationSettings s = AllocationSettings.from(conf(
        "tide.dynamicAllocation.adaptiveIdleTimeout", "false",
        "tide.dynamicAllocation.lookahead", "false",
        "tide.dynamicAllocation.rampUp", "exponential"));
    assertEquals(new AllocationSettings.Rules(false, true, false, true, true, true, true), s.rules());
    assertEquals(RampUpMode.EXPONENTIAL, s.rampUp());
    assertEquals(AllocationSettings.Rules.NONE, AllocationSettings.from(conf(
        "tide.dynamicAllocation.adaptiveIdleTimeout", "false",
        "tide.dynamicAllocation.earlyRelease", "false",
        "tide.dynamicAllocation.lookahead", "false",
        "tide.dynamicAllocation.immediateFirstRequest", "false",
        "tide.dynamicAllocation.arrivalHold", "false",
        "tide.dynamicAllocation.arrivalTrend", "false",
        "tide.dynamicAllocation.arrivalAtOnce", "false")).rules());
    rejected("tide.dynamicAllocation.rampUp", "doubling",
        "tide.dynamicAllocation.rampUp", "doubling");
  }

  @Test
  void derivedDefaultsFollowTheSettingsTheyDeriveFrom() {
    AllocationSettings s = AllocationSettings.from(conf(
        "tide.dynamicAllocation.minExecutors", "3",
        "tide.dynamicAllocation.schedulerBacklogTimeout", "500ms",
        "tide.dynamicAllocation.executorIdleTimeout", "2m",
        "tide.executor.cores", "8", "tide.task.cpus", "2"));
    assertEquals(3, s.initialExecutors());
    assertEquals(500, s.sustainedSchedulerBacklogTimeoutMillis());
    assertEquals(240_000, s.cachedExecutorIdleTimeoutMillis());
    assertEquals(4, s.tasksPerExecutor());
  }

  @Test
  void explicitValuesAreReadAsPeopleWriteThem() {
    AllocationSettings s = AllocationSettings.from(conf(
        "tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "5s",
        "tide.dynamicAllocation.cachedExecutorIdleTimeout", "1h",
        "tide.dynamicAllocation.executorAllocationRatio", " 0.25 ",
        "tide.dynamicAllocation.initialExecutors", "7",
        "tide.dynamicAllocation.rampUp", "Headroom"));
    assertEquals(5_000, s.sustainedSchedulerBacklogTimeoutMillis());
    assertEquals(3_600_000, s.cachedExecutorIdleTimeoutMillis());
    assertEquals(new BigDecimal("0.25"), s.executorAllocationRatio());
    assertEquals(7, s.initialExecutors());
    assertEquals(RampUpMode.HEADROOM, s.rampUp());
  }

  @Test
  void badValuesAreRejectedWithTheKeyAndTheValue() {
    rejected("tide.dynamicAllocation.idleAllowance", "-0.5",
        "tide.dynamicAllocation.idleAllowance", "-0.5");
    rejected("tide.dynamicAllocation.idleAllowance", "lots",
        "tide.dynamicAllocation.idleAllowance", "lots");
    rejected("tide.dynamicAllocation.executorIdleTimeout", "soon",
        "tide.dynamicAllocation.executorIdleTimeout", "soon");
    rejected("tide.dynamicAllocation.schedulerBacklogTimeout", "0",
        "tide.dynamicAllocation.schedulerBacklogTimeout", "0s");
    rejected("tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "later",
        "tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "later");
    rejected("tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "0ms",
        "tide.dynamicAllocation.sustainedSchedulerBacklogTimeout", "0ms");
    rejected("tide.dynamicAllocation.cachedExecutorIdleTimeout", "-5s",
        "tide.dynamicAllocation.cachedExecutorIdleTimeout", "-5s");
    rejected("tide.dynamicAllocation.executorAllocationRatio", "1.5",
        "tide.dynamicAllocation.executorAllocationRatio", "1.5");
    rejected("tide.dynamicAllocation.executorAllocationRatio", "0",
        "tide.dynamicAllocation.executorAllocationRatio", "0");
    rejected("tide.dynamicAllocation.executorAllocationRatio", "half",
        "tide.dynamicAllocation.executorAllocationRatio", "half");
    rejected("tide.dynamicAllocation.rampUp", "linear",
        "tide.dynamicAllocation.rampUp", "linear");
    rejected("tide.dynamicAllocation.maxExecutors", "0",
        "tide.dynamicAllocation.maxExecutors", "0");
  }

  @Test
  void inconsistentBoundsNameBothKeys() {
    rejected("tide.dynamicAllocation.minExecutors", "(5)",
        "tide.dynamicAllocation.minExecutors", "5", "tide.dynamicAllocation.maxExecutors", "2");
    rejected("tide.dynamicAllocation.initialExecutors", "(20)",
        "tide.dynamicAllocation.initialExecutors", "20",
        "tide.dynamicAllocation.maxExecutors", "10");
    rejected("tide.dynamicAllocation.initialExecutors", "(1)",
        "tide.dynamicAllocation.initialExecutors", "1",
        "tide.dynamicAllocation.minExecutors", "2");
    rejected("tide.task.cpus", "(4)", "tide.task.cpus", "4", "tide.executor.cores", "2");
  }

  @Test
  void describeStatesTheEffectiveSettings() {
    assertEquals("dynamic allocation on: min 0, max unlimited, initial 0, 1 tasks per executor,"
        + " ratio 1.0, backlog timeout 1000 ms (sustained 1000 ms), idle timeout 60000 ms"
        + " (cached 120000 ms), ramp-up backlog, adaptive idle timeout on, early release on,"
        + " lookahead on, immediate first request on, arrival hold on, arrival trend on,"
        + " arrival at once on, arrival hold weight 9, idle allowance 1.0",
        AllocationSettings.from(conf()).describe());
  }
}
