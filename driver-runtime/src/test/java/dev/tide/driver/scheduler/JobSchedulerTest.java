package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler.Assignment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobSchedulerTest {
  private long now = 0;

  private JobScheduler scheduler(int maps, int reduces, List<String> hostsOfMap0) {
    List<InputSplit> splits = new java.util.ArrayList<>();
    for (int i = 0; i < maps; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, i == 0 ? hostsOfMap0 : List.of()));
    }
    JobPlan plan = new JobPlan("t", splits, "M", "R", reduces, "");
    return new JobScheduler(plan, 1, 2, () -> now, EventLog.disabled());
  }

  private static void succeed(JobScheduler s, Assignment a) {
    s.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
  }

  @Test
  void reduceStageStartsWhenAllMapOutputsExistAndCarriesTheirLocations() {
    JobScheduler s = scheduler(2, 1, List.of());
    s.executorAdded("1", "hostA", 7001);
    s.executorAdded("2", "hostB", 7002);
    List<Assignment> maps = s.assignTasks();
    assertEquals(2, maps.size());
    assertEquals(0, s.pendingTasks());
    assertEquals(2, s.runningTasks());
    succeed(s, maps.get(0));
    assertTrue(s.assignTasks().isEmpty(), "no reduce before every map output exists");
    succeed(s, maps.get(1));
    assertEquals(1, s.pendingTasks());
    List<Assignment> reduces = s.assignTasks();
    assertEquals(1, reduces.size());
    TaskDescription reduce = reduces.get(0).task();
    assertEquals(TaskDescription.Kind.REDUCE, reduce.kind());
    assertEquals(List.of(new MapLocation(0, "hostA", 7001), new MapLocation(1, "hostB", 7002)),
        reduce.mapOutputs());
    succeed(s, reduces.get(0));
    assertTrue(s.isDone());
  }

  @Test
  void mapPreferringAnExecutorsHostGoesThere() {
    JobScheduler s = scheduler(3, 1, List.of("hostB"));
    assertEquals(1, s.localityAwareTasks());
    assertEquals(Map.of("hostB", 1), s.hostToLocalTaskCount());
    s.executorAdded("b", "hostB", 1);
    Assignment a = s.assignTasks().get(0);
    assertEquals(0, a.task().index());
  }

  @Test
  void lostExecutorsTasksRunAgainWithoutCountingAsFailuresAndMapOutputsSurvive() {
    JobScheduler s = scheduler(2, 1, List.of());
    s.executorAdded("1", "hostA", 1);
    s.executorAdded("2", "hostA", 1);
    List<Assignment> maps = s.assignTasks();
    succeed(s, maps.get(0));
    s.executorLost(maps.get(1).executorId(), "killed");
    s.executorLost(maps.get(0).executorId(), "idle");
    assertEquals(1, s.pendingTasks(), "only the running map is pending again");
    s.executorAdded("3", "hostA", 1);
    Assignment rerun = s.assignTasks().get(0);
    assertEquals(maps.get(1).task().index(), rerun.task().index());
    assertEquals(1, rerun.task().attempt());
    succeed(s, rerun);
    assertEquals(TaskDescription.Kind.REDUCE, s.assignTasks().get(0).task().kind());
    assertFalse(s.failure().isPresent());
  }

  @Test
  void taskFailingMaxAttemptsTimesFailsTheJobWithItsMessage() {
    JobScheduler s = scheduler(1, 1, List.of());
    s.executorAdded("1", "h", 1);
    s.taskEnded(TaskOutcome.failed(s.assignTasks().get(0).task().taskId(), "boom 1"));
    assertFalse(s.failure().isPresent());
    s.taskEnded(TaskOutcome.failed(s.assignTasks().get(0).task().taskId(), "boom 2"));
    assertTrue(s.failure().orElseThrow().contains("map 0 failed 2 times"), s.failure().get());
    assertTrue(s.failure().get().contains("boom 2"));
  }

  @Test
  void fetchFailureRerunsTheLostMapOutputThenTheReduce() {
    JobScheduler s = scheduler(2, 1, List.of());
    s.executorAdded("1", "hostA", 1);
    for (Assignment a : s.assignTasks()) {
      succeed(s, a);
    }
    succeed(s, s.assignTasks().get(0));
    // That was map 1 (one slot, serial); now the reduce.
    Assignment reduce = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.REDUCE, reduce.task().kind());
    s.taskEnded(new TaskOutcome(reduce.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "not found", "hostA", 1, false, List.of(1), Map.of()));
    Assignment rerun = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.MAP, rerun.task().kind());
    assertEquals(1, rerun.task().index());
    succeed(s, rerun);
    Assignment again = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.REDUCE, again.task().kind());
    succeed(s, again);
    assertTrue(s.isDone());
  }

  @Test
  void fetchFailureRoundsBeyondTheBoundFailTheJobWithTheDiagnosis() {
    List<InputSplit> splits = List.of(new InputSplit(new byte[] {0}, List.of()),
        new InputSplit(new byte[] {1}, List.of()));
    JobScheduler s = new JobScheduler(new JobPlan("t", splits, "M", "R", 1, ""), 2, 100, 2,
        () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 1);
    for (Assignment a : s.assignTasks()) {
      succeed(s, a);
    }
    for (int round = 1; round <= 3; round++) {
      Assignment reduce = s.assignTasks().get(0);
      assertEquals(TaskDescription.Kind.REDUCE, reduce.task().kind());
      s.taskEnded(new TaskOutcome(reduce.task().taskId(), TaskOutcome.State.FETCH_FAILED,
          "connection refused", "hostA", 1, true, List.of(), Map.of()));
      if (round <= 2) {
        assertFalse(s.failure().isPresent(), "round " + round);
        List<Assignment> reruns = s.assignTasks();
        assertEquals(2, reruns.size(), "both maps of the lost service rerun");
        reruns.forEach(a -> succeed(s, a));
      }
    }
    String why = s.failure().orElseThrow();
    assertTrue(why.contains("3 consecutive rounds") && why.contains(
        "tide.stage.maxConsecutiveAttempts = 2") && why.contains("connection refused"), why);
  }

  @Test
  void aReduceThatSucceedsStartsTheRoundCountAgain() {
    List<InputSplit> splits = List.of(new InputSplit(new byte[] {0}, List.of()));
    JobScheduler s = new JobScheduler(new JobPlan("t", splits, "M", "R", 2, ""), 2, 100, 1,
        () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 1);
    succeed(s, s.assignTasks().get(0));
    List<Assignment> reduces = s.assignTasks();
    s.taskEnded(new TaskOutcome(reduces.get(0).task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "not found", "hostA", 1, false, List.of(0), Map.of()));
    succeed(s, reduces.get(1));
    succeed(s, s.assignTasks().get(0)); // the map rerun
    Assignment again = s.assignTasks().get(0);
    s.taskEnded(new TaskOutcome(again.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "not found", "hostA", 1, false, List.of(0), Map.of()));
    assertFalse(s.failure().isPresent(), "a reduce succeeded between the two rounds");
  }

  @Test
  void executorThatRanOutOfMemoryGetsNoMoreTasks() {
    JobScheduler s = scheduler(2, 1, List.of());
    s.executorAdded("1", "h", 1);
    s.executorAdded("2", "h", 1);
    List<Assignment> maps = s.assignTasks();
    Assignment onOne = maps.stream().filter(a -> a.executorId().equals("1")).findFirst()
        .orElseThrow();
    s.taskEnded(new TaskOutcome(onOne.task().taskId(), TaskOutcome.State.FAILED,
        "java.lang.OutOfMemoryError", "", 0, false, List.of(),
        Map.of(TaskOutcome.EXECUTOR_OUT_OF_MEMORY, 1L)));
    assertEquals(1, s.activeExecutors(), "the executor that ran out of heap is on its way out");
    assertTrue(s.assignTasks().isEmpty(), "its retry waits for a slot elsewhere");
    succeed(s, maps.stream().filter(a -> a.executorId().equals("2")).findFirst().orElseThrow());
    Assignment retry = s.assignTasks().get(0);
    assertEquals("2", retry.executorId());
    assertEquals(onOne.task().index(), retry.task().index());
  }

  @Test
  void executorsPendingRemovalGetNoTasksAndIdleTimesAreTracked() {
    JobScheduler s = scheduler(2, 1, List.of());
    now = 10;
    s.executorAdded("1", "h", 1);
    s.executorAdded("2", "h", 1);
    s.markPendingRemoval(List.of("2"));
    assertEquals(1, s.activeExecutors());
    List<Assignment> first = s.assignTasks();
    assertEquals(List.of("1"), first.stream().map(Assignment::executorId).toList());
    assertTrue(s.idleExecutors().isEmpty());
    now = 500;
    succeed(s, first.get(0));
    List<Assignment> second = s.assignTasks();
    assertEquals(List.of("1"), second.stream().map(Assignment::executorId).toList());
    now = 700;
    succeed(s, second.get(0));
    assertEquals(List.of(new JobScheduler.IdleExecutor("1", 700)), s.idleExecutors());
  }
}
