package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.scheduler.JobScheduler.IdleExecutor;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class AllocationPolicyTest {
  private static AllocationPolicy policy(int min, int max, int tasksPerExecutor) {
    return new AllocationPolicy(new AllocationPolicy.Settings(true, min, max, min,
        tasksPerExecutor, 1_000));
  }

  @Test
  void targetFollowsPendingAndRunningTasksRoundedUpPerExecutor() {
    AllocationPolicy p = policy(0, 100, 2);
    assertEquals(5, p.evaluate(0, 7, 2, 0, List.of()).targetExecutors());
    assertEquals(0, p.evaluate(0, 0, 0, 0, List.of()).targetExecutors());
  }

  @Test
  void targetIsClampedToMinAndMax() {
    AllocationPolicy p = policy(2, 4, 1);
    assertEquals(4, p.evaluate(0, 50, 0, 0, List.of()).targetExecutors());
    assertEquals(2, p.evaluate(0, 0, 0, 0, List.of()).targetExecutors());
  }

  @Test
  void idleExecutorsAreRemovedOnlyAfterTheTimeoutOldestFirst() {
    AllocationPolicy p = policy(0, 10, 1);
    List<IdleExecutor> idle = List.of(new IdleExecutor("a", 500), new IdleExecutor("b", 100));
    assertTrue(p.evaluate(1_000, 0, 0, 2, idle).executorsToRemove().isEmpty());
    assertEquals(List.of("b"), p.evaluate(1_100, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("b", "a"), p.evaluate(1_500, 0, 0, 2, idle).executorsToRemove());
  }

  @Test
  void removalNeverGoesBelowMinNorBelowTheTarget() {
    List<IdleExecutor> idle = List.of(new IdleExecutor("a", 0), new IdleExecutor("b", 0),
        new IdleExecutor("c", 0));
    assertEquals(1, policy(2, 10, 1).evaluate(10_000, 0, 0, 3, idle)
        .executorsToRemove().size());
    // One running task needs one executor besides the three idle ones: 4 active, target 1.
    assertEquals(3, policy(0, 10, 1).evaluate(10_000, 0, 1, 4, idle)
        .executorsToRemove().size());
    assertEquals(0, policy(0, 10, 1).evaluate(10_000, 3, 0, 3, idle)
        .executorsToRemove().size());
  }

  @Test
  void settingsNameTheKeyOfABadValue() {
    Configuration conf = new Configuration(false);
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "soon");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AllocationPolicy.Settings.from(conf));
    assertTrue(e.getMessage().contains("tide.dynamicAllocation.executorIdleTimeout"),
        e.getMessage());
    assertTrue(e.getMessage().contains("soon"), e.getMessage());

    Configuration minAboveMax = new Configuration(false);
    minAboveMax.set("tide.dynamicAllocation.minExecutors", "5");
    minAboveMax.set("tide.dynamicAllocation.maxExecutors", "2");
    e = assertThrows(IllegalArgumentException.class,
        () -> AllocationPolicy.Settings.from(minAboveMax));
    assertTrue(e.getMessage().contains("minExecutors"), e.getMessage());
  }

  @Test
  void durationsAndDefaultsAreReadAsPeopleWriteThem() {
    Configuration conf = new Configuration(false);
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "2m");
    conf.set("tide.executor.cores", "4");
    AllocationPolicy.Settings s = AllocationPolicy.Settings.from(conf);
    assertEquals(120_000, s.idleTimeoutMillis());
    assertEquals(4, s.tasksPerExecutor());
    assertEquals(60_000, AllocationPolicy.Settings.from(new Configuration(false))
        .idleTimeoutMillis());
  }
}
