package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.driver.scheduler.JobScheduler.Assignment;
import dev.tide.rpc.TaskOutcome;
import dev.tide.time.ManualClock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demand signal cannot be lost: the policy reads the scheduler's authoritative counts at each
 * evaluation, so a burst of task events between two ticks (no evaluation in between) leaves the
 * target exactly where the counts say.
 */
class DemandSignalTest {
  private static final int REDUCES = 60_000;
  private static final int EXECUTORS = 200;
  private static final int SLOTS = 4;

  @Test
  void targetIsExactAfterABurstOfOneHundredThousandTaskEvents() {
    ManualClock clock = new ManualClock(0);
    // One map and 60,000 reduces: the burst is in the reduce stage.
    JobPlan plan = JobPlan.mapReduce("burst", List.of(new InputSplit(new byte[0], List.of())),
        dev.tide.driver.jobs.SleepJob.SleepMapper.class,
        dev.tide.driver.jobs.SleepJob.SleepReducer.class, REDUCES, "");
    JobScheduler scheduler = new JobScheduler(plan, SLOTS, 2, clock::millis, EventLog.disabled());
    BatchAllocationPolicy policy = new BatchAllocationPolicy(
        AllocationSettings.classic(0, Integer.MAX_VALUE, SLOTS), new ExponentialRampUp());
    for (int i = 0; i < EXECUTORS; i++) {
      scheduler.executorAdded("e" + i, "host" + (i % 20), 7000);
    }
    Deque<Assignment> running = new ArrayDeque<>(scheduler.assignTasks());
    succeed(scheduler, running.poll());
    running.addAll(scheduler.assignTasks());
    assertEquals(REDUCES - EXECUTORS * SLOTS, scheduler.pendingTasks());

    // Ramp on the 100 ms tick until the target is what 60,000 tasks need: 15,000.
    int target = 0;
    for (int tick = 0; tick < 300 && target < REDUCES / SLOTS; tick++) {
      target = evaluate(policy, clock.advanceMillis(100), scheduler).targetExecutors();
    }
    assertEquals(REDUCES / SLOTS, target);

    // The burst, with no evaluation: 50,000 task ends and the 50,000 starts they free room for.
    int events = 0;
    int ended = 0;
    while (ended < 50_000) {
      succeed(scheduler, running.poll());
      ended++;
      List<Assignment> started = scheduler.assignTasks();
      running.addAll(started);
      events += 1 + started.size();
    }
    assertTrue(events >= 100_000, events + " events");
    int pending = REDUCES - EXECUTORS * SLOTS - ended;
    assertEquals(pending, scheduler.pendingTasks());
    assertEquals(EXECUTORS * SLOTS, scheduler.runningTasks());

    // The very next tick lowers the target to exactly what the remaining tasks need.
    int expected = ceilDiv(pending + EXECUTORS * SLOTS, SLOTS);
    assertEquals(expected, evaluate(policy, clock.advanceMillis(100), scheduler).targetExecutors());

    // A second burst drains the job; the next tick drops the target to 0.
    while (!running.isEmpty()) {
      succeed(scheduler, running.poll());
      running.addAll(scheduler.assignTasks());
    }
    assertTrue(scheduler.isDone());
    assertEquals(0, evaluate(policy, clock.advanceMillis(100), scheduler).targetExecutors());
  }

  private static BatchAllocationPolicy.Decision evaluate(BatchAllocationPolicy policy,
      long now, JobScheduler s) {
    return policy.evaluate(now, s.pendingTasks(), s.runningTasks(), s.activeExecutors(),
        s.idleExecutors());
  }

  private static void succeed(JobScheduler s, Assignment a) {
    s.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
