package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.AllocationSettings;
import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.alloc.SchedulerView;
import dev.tide.driver.alloc.StageOutlook;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.time.ManualClock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The executor target with the real batch policy over a hand-written scheduler view: a request
 * goes to the cluster when the target or the locality hints change and only then, each change of
 * the target is recorded with its reason, and idle executors past their timeout are handed back
 * for removal.
 */
class ExecutorTargetTest {
  private final ManualClock clock = new ManualClock(0);
  private final List<String> requests = new ArrayList<>();
  private final List<EventLine> events = new ArrayList<>();
  private final EventLog log = EventLog.disabled();
  private final FakeView view = new FakeView();
  private final ExecutorTarget target;

  ExecutorTargetTest() {
    log.setListener(events::add);
    Configuration conf = new Configuration(false);
    conf.set(TideOptions.DA_EXECUTOR_IDLE_TIMEOUT.key(), "60s");
    ExecutorAllocationClient client = new ExecutorAllocationClient() {
      @Override
      public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
          Map<String, Integer> hostToLocalTaskCount) {
        requests.add(targetExecutors + " " + localityAwareTasks + " " + hostToLocalTaskCount);
      }

      @Override
      public void killExecutors(Collection<String> executorIds) {}
    };
    target = new ExecutorTarget(
        BatchAllocationPolicy.create(AllocationSettings.from(conf), client), client);
  }

  /** The scheduler as the policy reads it, set by hand. */
  private static final class FakeView implements SchedulerView {
    int pending;
    int running;
    int active;
    List<IdleExecutor> idle = List.of();
    long submitted;
    Map<String, Integer> hints = Map.of();

    @Override
    public int pendingTasks() {
      return pending;
    }

    @Override
    public int runningTasks() {
      return running;
    }

    @Override
    public int activeExecutors() {
      return active;
    }

    @Override
    public List<IdleExecutor> idleExecutors() {
      return idle;
    }

    @Override
    public List<StageOutlook> stageOutlook() {
      return List.of();
    }

    @Override
    public long tasksSubmitted() {
      return submitted;
    }

    @Override
    public int localityAwareTasks() {
      return hints.isEmpty() ? 0 : pending;
    }

    @Override
    public Map<String, Integer> hostToLocalTaskCount() {
      return hints;
    }
  }

  @Test
  void theFirstEvaluationSendsTheInitialTargetAndAnUnchangedOneSendsNothing() {
    assertEquals(-1, target.last());

    target.evaluate(clock.millis(), view, 0, log);
    target.evaluate(clock.advanceMillis(100), view, 0, log);

    assertEquals(List.of("0 0 {}"), requests);
    assertEquals(0, target.last());
    assertTrue(events.isEmpty(), "0 -> 0 is no change of the target");
  }

  @Test
  void newLocalityHintsAreSentEvenWithTheSameTarget() {
    target.evaluate(clock.millis(), view, 0, log);
    view.hints = Map.of("node1", 0);

    target.evaluate(clock.advanceMillis(100), view, 0, log);

    assertEquals(List.of("0 0 {}", "0 0 {node1=0}"), requests);
  }

  @Test
  void aBacklogRaisesTheTargetAndTheChangeIsRecordedWithItsReason() {
    view.pending = 4;
    view.submitted = 4;
    assertTrue(target.newSubmissions(view));
    target.evaluate(clock.millis(), view, 0, log);
    assertFalse(target.newSubmissions(view), "the policy has seen them");

    for (int i = 0; i < 30 && target.last() < 4; i++) {
      target.evaluate(clock.advanceMillis(1_000), view, 0, log);
    }

    assertEquals(4, target.last(), "four pending tasks of one slot each");
    EventLine change = events.stream().filter(e -> e.is(EventName.TARGET_CHANGED))
        .reduce((a, b) -> b).orElseThrow();
    assertEquals("4", change.get("target"));
    assertTrue(change.get("reason").contains("pending"), change.get("reason"));
    assertTrue(requests.get(requests.size() - 1).startsWith("4 "), requests.toString());
  }

  @Test
  void anExecutorIdlePastItsTimeoutIsHandedBackForRemoval() {
    view.active = 1;
    view.idle = List.of(new IdleExecutor("7", 0));
    assertEquals(List.of(), target.evaluate(clock.advanceMillis(1_000), view, 0, log));

    List<String> remove = target.evaluate(clock.advanceMillis(60_000), view, 0, log);

    assertEquals(List.of("7"), remove);
  }

  @Test
  void aStreamingPoliciesTargetIsAskedForWithoutLocality() {
    target.request(5);

    assertEquals(5, target.last());
    assertEquals(List.of("5 0 {}"), requests);
  }

  @Test
  void announcedWorkRaisesTheTargetOneStartLatencyBeforeItsDeadlineWithNoTaskSubmitted() {
    target.policy().executorStarted(3_000); // measured: a start takes 3 s
    target.evaluate(clock.millis(), view, 0, log);
    target.expect(4, 20_000, clock.millis(), view);

    // 20 s ahead the work is far beyond a start: nothing is asked for yet.
    for (int i = 0; i < 160; i++) {
      target.evaluate(clock.advanceMillis(100), view, 0, log);
    }
    assertEquals(0, target.last(), "at 16 s, 4 s before the deadline, a start (3 s) is not due");

    long raisedAt = -1;
    for (int i = 0; i < 40 && raisedAt < 0; i++) {
      target.evaluate(clock.advanceMillis(100), view, 0, log);
      if (target.last() == 4) {
        raisedAt = clock.millis();
      }
    }
    assertEquals(0, view.submitted, "no task has been submitted");
    assertTrue(raisedAt > 0 && raisedAt < 20_000 - 3_000 + 100,
        "raised to 4 one start latency (3 s) ahead of the deadline (20 s): at " + raisedAt);
    assertTrue(events.stream().anyMatch(e -> e.is(EventName.TARGET_CHANGED)
        && e.get("reason").contains("lookahead")), events.toString());
  }

  @Test
  void tasksSubmittedAfterTheAnnouncementEndItAndTheirOwnCountsDriveTheTarget() {
    target.policy().executorStarted(3_000);
    target.evaluate(clock.millis(), view, 0, log);
    target.expect(4, 10_000, clock.millis(), view);
    target.evaluate(clock.advanceMillis(100), view, 0, log);
    assertTrue(target.expecting());

    view.submitted = 1; // the work came early, smaller than announced: one task
    view.pending = 1;
    for (int i = 0; i < 150; i++) {
      target.evaluate(clock.advanceMillis(100), view, 0, log);
    }

    assertFalse(target.expecting(), "the submitted tasks ended the announcement");
    assertEquals(1, target.last(), "one pending task needs one executor, not the 4 announced");
  }

  @Test
  void anAnnouncementWhoseWorkNeverComesExpiresAfterAsLongAgainAsItsLead() {
    target.policy().executorStarted(1_000);
    target.expect(3, 5_000, clock.millis(), view);
    for (int i = 0; i < 60; i++) {
      target.evaluate(clock.advanceMillis(100), view, 0, log);
    }
    assertEquals(3, target.last(), "due at 5 s");

    for (int i = 0; i < 50; i++) {
      target.evaluate(clock.advanceMillis(100), view, 0, log);
    }

    assertFalse(target.expecting(), "expired 5 s after its deadline");
    assertEquals(0, target.last(), "no tasks and nothing announced: the target drops");
  }
}
