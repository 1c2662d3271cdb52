package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.AllocationSettings.RampUpMode;
import dev.tide.time.ManualClock;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batch policy step by step on a manual clock, as the driver drives it: one evaluation per
 * 100 ms tick with the scheduler's counts.
 */
class BatchAllocationPolicyTest {
  private static final long TICK = 100;
  private final ManualClock clock = new ManualClock(0);

  /** Ticks for {@code millis} with a fixed load; returns every target seen after a change. */
  private List<Integer> run(BatchAllocationPolicy p, long millis, int pending, int running,
      int active) {
    List<Integer> changes = new ArrayList<>();
    int last = p.targetExecutors();
    for (long t = 0; t < millis; t += TICK) {
      int target = p.evaluate(clock.advanceMillis(TICK), pending, running, active, List.of())
          .targetExecutors();
      if (target != last) {
        changes.add(target);
        last = target;
      }
    }
    return changes;
  }

  private static BatchAllocationPolicy exponential(AllocationSettings s) {
    return new BatchAllocationPolicy(s, new ExponentialRampUp());
  }

  @Test
  void sustainedBacklogRampsByOneTwoFourEight() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 1000, 1));
    assertEquals(0, p.evaluate(clock.millis(), 100, 0, 0, List.of()).targetExecutors());
    // Nothing before the backlog has lasted schedulerBacklogTimeout (1 s) ...
    assertEquals(List.of(), run(p, 900, 100, 0, 0));
    // ... then +1 at 1 s, +2 at 2 s, +4 at 3 s, +8 at 4 s (sustained timeout 1 s).
    assertEquals(List.of(1), run(p, 100, 100, 0, 0));
    assertEquals(List.of(3), run(p, 1000, 100, 0, 0));
    assertEquals(List.of(7), run(p, 1000, 100, 0, 0));
    assertEquals(List.of(15), run(p, 1000, 100, 0, 0));
    assertEquals(16, p.addStep());
  }

  @Test
  void rampStartsFromTheRunningExecutorsAndStopsAtWhatTheTasksNeed() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 1000, 2));
    // 5 executors already run (for example left over from an earlier stage); 20 tasks need 10.
    assertEquals(List.of(6, 8, 10), run(p, 3100, 14, 6, 5));
    assertEquals(1, p.addStep(), "the last step (4) was not used in full");
    assertEquals(List.of(), run(p, 5000, 14, 6, 5));
  }

  @Test
  void targetIsClampedToMaxExecutors() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 5, 1));
    assertEquals(List.of(1, 3, 5), run(p, 10_000, 100, 0, 0));
  }

  @Test
  void targetDropsAtOnceWhenTasksFinishAndTheStepResets() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(2, 1000, 1));
    assertEquals(List.of(3, 5, 9, 17), run(p, 4100, 100, 0, 0));
    assertEquals(16, p.addStep());
    // 96 tasks done at once: 4 remain running; the very next tick lowers the target.
    assertEquals(4, p.evaluate(clock.advanceMillis(TICK), 0, 4, 17, List.of()).targetExecutors());
    assertEquals(1, p.addStep());
    // Never below minExecutors.
    assertEquals(2, p.evaluate(clock.advanceMillis(TICK), 0, 0, 17, List.of()).targetExecutors());
  }

  @Test
  void aNewStageAfterAQuietPeriodStartsAgainAtStepOne() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 1000, 1));
    assertEquals(List.of(1, 3, 7), run(p, 3100, 100, 0, 0));
    assertEquals(8, p.addStep());
    // The 7 executors took the last pending tasks: the backlog clears, the step resets.
    assertEquals(List.of(), run(p, 5000, 0, 7, 7));
    assertEquals(1, p.addStep());
    // The next stage queues 50 more: the timer starts again and the first raise adds 1.
    assertEquals(List.of(), run(p, 1000, 50, 7, 7));
    assertEquals(List.of(8), run(p, 100, 50, 7, 7));
    assertEquals(List.of(10), run(p, 1000, 50, 7, 7));
  }

  @Test
  void initialExecutorsIsTheFirstTargetAndTheRampStartsThere() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 1000, 1)
        .withInitialExecutors(10));
    assertEquals(10, p.targetExecutors());
    assertEquals(10, p.evaluate(clock.millis(), 100, 0, 0, List.of()).targetExecutors());
    assertEquals(List.of(11, 13), run(p, 2000, 100, 0, 0));
  }

  @Test
  void initialExecutorsAboveWhatTheTasksNeedIsLoweredAtOnce() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(1, 1000, 1)
        .withInitialExecutors(10));
    assertEquals(3, p.evaluate(clock.millis(), 3, 0, 0, List.of()).targetExecutors());
  }

  @Test
  void executorAllocationRatioScalesWhatTheTasksNeed() {
    BatchAllocationPolicy half = exponential(AllocationSettings.classic(0, 1000, 4)
        .withRatio(new BigDecimal("0.5")).withInitialExecutors(100));
    // 30 tasks * 0.5 / 4 = 3.75 -> 4
    assertEquals(4, half.evaluate(0, 20, 10, 0, List.of()).targetExecutors());
    // Exact arithmetic: 10 * 0.3 = 3 exactly, not 3.0000000000000004 -> 4.
    BatchAllocationPolicy tenth = exponential(AllocationSettings.classic(0, 1000, 1)
        .withRatio(new BigDecimal("0.3")).withInitialExecutors(100));
    assertEquals(3, tenth.evaluate(0, 10, 0, 0, List.of()).targetExecutors());
    BatchAllocationPolicy ramped = exponential(AllocationSettings.classic(0, 1000, 1)
        .withRatio(new BigDecimal("0.5")));
    assertEquals(List.of(1, 3, 5), run(ramped, 10_000, 10, 0, 0));
  }

  @Test
  void headroomReachesWhatTheTasksNeedInOneStepWhenTheQueueCanGrantIt() {
    AllocationSettings s = AllocationSettings.classic(0, 10_000, 1)
        .withRampUp(RampUpMode.HEADROOM);
    BatchAllocationPolicy p = BatchAllocationPolicy.create(s, () -> 500);
    assertEquals(List.of(256), run(p, 1100, 256, 0, 0));
    assertEquals(List.of(), run(p, 5000, 256, 0, 0));
  }

  @Test
  void headroomAsksForWhatTheQueueCanGrantAndNeverLessThanTheExponentialStep() {
    int[] grantable = {40};
    AllocationSettings s = AllocationSettings.classic(0, 10_000, 1)
        .withRampUp(RampUpMode.HEADROOM);
    BatchAllocationPolicy p = BatchAllocationPolicy.create(s, () -> grantable[0]);
    assertEquals(List.of(40), run(p, 1100, 1000, 0, 0));
    // 40 started; the queue is full now: the exponential step still applies.
    grantable[0] = 0;
    assertEquals(List.of(42), run(p, 1000, 1000, 0, 40));
    // 100 more free: active + grantable.
    grantable[0] = 100;
    assertEquals(List.of(142), run(p, 1000, 1000, 0, 42));
  }

  @Test
  void unknownHeadroomDefaultsToUnlimited() {
    ExecutorAllocationClient client = new ExecutorAllocationClient() {
      @Override
      public void requestTotalExecutors(int target, int tasks, java.util.Map<String, Integer> h) {}

      @Override
      public void killExecutors(java.util.Collection<String> ids) {}
    };
    assertEquals(Integer.MAX_VALUE, client.grantableExecutors());
    BatchAllocationPolicy p = BatchAllocationPolicy.create(AllocationSettings.classic(0, 64, 1)
        .withRampUp(RampUpMode.HEADROOM), client);
    assertEquals(List.of(64), run(p, 1100, 1000, 0, 0));
  }

  @Test
  void disabledKeepsInitialExecutorsAndRemovesNothing() {
    AllocationSettings off = new AllocationSettings(false, 0, 100, 4, 1, BigDecimal.ONE, 1000,
        1000, 0, 0, RampUpMode.EXPONENTIAL, AllocationSettings.Rules.NONE, 9, 0);
    BatchAllocationPolicy p = exponential(off);
    BatchAllocationPolicy.Decision d = p.evaluate(100_000, 0, 0, 4,
        List.of(new IdleExecutor("a", 0)));
    assertEquals(4, d.targetExecutors());
    assertTrue(d.executorsToRemove().isEmpty());
    assertEquals(List.of(), run(p, 5000, 1000, 0, 4));
  }

  @Test
  void idleExecutorsGoAfterTheTimeoutLongestIdleFirst() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 10, 1)
        .withIdleTimeouts(1_000, 2_000));
    List<IdleExecutor> idle = List.of(new IdleExecutor("a", 500), new IdleExecutor("b", 100));
    assertEquals(List.of(), p.evaluate(1_000, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("b"), p.evaluate(1_100, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("b", "a"), p.evaluate(1_500, 0, 0, 2, idle).executorsToRemove());
  }

  @Test
  void idleRemovalNeverGoesBelowMinNorBelowTheTarget() {
    List<IdleExecutor> idle = List.of(new IdleExecutor("a", 0), new IdleExecutor("b", 0),
        new IdleExecutor("c", 0));
    BatchAllocationPolicy withMin = exponential(AllocationSettings.classic(2, 10, 1)
        .withInitialExecutors(2));
    assertEquals(List.of("a"), withMin.evaluate(100_000, 0, 0, 3, idle).executorsToRemove());
    // Target 4 (one running task plus three pending); 4 active: nothing goes.
    BatchAllocationPolicy atTarget = exponential(AllocationSettings.classic(0, 10, 1)
        .withInitialExecutors(4));
    BatchAllocationPolicy.Decision d = atTarget.evaluate(100_000, 3, 1, 4, idle);
    assertEquals(4, d.targetExecutors());
    assertEquals(List.of(), d.executorsToRemove());
    // One running task, three idle executors: target 1, the three idle ones go.
    BatchAllocationPolicy lowered = exponential(AllocationSettings.classic(0, 10, 1)
        .withInitialExecutors(4));
    assertEquals(List.of("a", "b", "c"),
        lowered.evaluate(100_000, 0, 1, 4, idle).executorsToRemove());
  }

  @Test
  void executorsWithCachedBlocksStayUntilTheCachedTimeout() {
    BatchAllocationPolicy p = exponential(AllocationSettings.classic(0, 10, 1)
        .withIdleTimeouts(60_000, 120_000));
    List<IdleExecutor> idle = List.of(new IdleExecutor("cached", 0, true),
        new IdleExecutor("plain", 0, false));
    assertEquals(List.of(), p.evaluate(59_999, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("plain"), p.evaluate(60_000, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("plain"), p.evaluate(119_999, 0, 0, 2, idle).executorsToRemove());
    assertEquals(List.of("cached", "plain"),
        p.evaluate(120_000, 0, 0, 2, idle).executorsToRemove());
  }

  @Test
  void defaultCachedIdleTimeoutIsTwiceTheIdleTimeout() {
    AllocationSettings s = AllocationSettings.from(new org.apache.hadoop.conf.Configuration(false));
    assertEquals(60_000, s.executorIdleTimeoutMillis());
    assertEquals(120_000, s.cachedExecutorIdleTimeoutMillis());
  }
}
