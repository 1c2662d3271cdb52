package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.alloc.StageOutlook;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler.Assignment;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobSchedulerTest {
  /** Stands for a job's mapper: the scheduler only passes its name on. */
  static final class M implements dev.tide.driver.job.Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) {}
  }

  /** Stands for a job's reducer. */
  static final class R implements dev.tide.driver.job.Reducer {
    @Override
    public void reduce(int partition, java.util.Iterator<dev.tide.driver.job.KeyValue> records,
        ReduceOutput output) {}
  }

  private long now = 0;

  private JobScheduler scheduler(int maps, int reduces, List<String> hostsOfMap0) {
    List<InputSplit> splits = new java.util.ArrayList<>();
    for (int i = 0; i < maps; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, i == 0 ? hostsOfMap0 : List.of()));
    }
    JobPlan plan = JobPlan.mapReduce("t", splits, M.class, R.class, reduces, "");
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
    assertEquals(List.of(new TaskDescription.ShuffleInput(0, List.of(
        new MapLocation(0, "hostA", 7001), new MapLocation(1, "hostB", 7002)))),
        reduce.inputs());
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
  void aStragglerGetsOneSpeculativeAttemptOnAnotherHostAndTheFirstToSucceedWins() {
    JobScheduler s = scheduler(4, 1, List.of());
    s.speculation(new SpeculationRule(0.75, 1.5, 100));
    s.executorAdded("1", "hostA", 7001);
    s.executorAdded("2", "hostA", 7002);
    s.executorAdded("3", "hostB", 7003);
    s.executorAdded("4", "hostC", 7004);
    List<Assignment> maps = s.assignTasks();
    now = 1_000;
    for (int i = 1; i < 4; i++) {
      succeed(s, maps.get(i)); // 3 of 4 succeed after 1 s; map 0 on executor 1 straggles
    }
    now = 1_500;
    assertFalse(s.findStragglers(), "1.5 s is not over 1.5 x the median of 1 s");
    now = 1_501;
    assertTrue(s.findStragglers());
    List<Assignment> copies = s.assignTasks();
    assertEquals(1, copies.size(), "one speculative attempt: " + copies);
    Assignment copy = copies.get(0);
    assertEquals(0, copy.task().index());
    assertEquals(1, copy.task().attempt());
    assertFalse(List.of("1", "2").contains(copy.executorId()), "on another host than hostA: "
        + copy.executorId());
    assertFalse(s.findStragglers(), "never a second copy");
    now = 2_000;
    succeed(s, copy);
    assertEquals(TaskDescription.Kind.REDUCE, s.assignTasks().get(0).task().kind(),
        "the copy's output completes the stage");
    // The original ends later: its result is ignored, the copy's location stays.
    succeed(s, maps.get(0));
    assertFalse(s.failure().isPresent());
    assertEquals(0, s.pendingTasks());
  }

  @Test
  void aFailedAttemptIsNotRerunWhileItsSpeculativeTwinRuns() {
    JobScheduler s = scheduler(2, 1, List.of());
    s.speculation(new SpeculationRule(0.5, 1.5, 100));
    s.executorAdded("1", "hostA", 1);
    s.executorAdded("2", "hostB", 2);
    List<Assignment> maps = s.assignTasks();
    now = 1_000;
    succeed(s, maps.get(1));
    now = 5_000;
    assertTrue(s.findStragglers());
    Assignment copy = s.assignTasks().get(0);
    s.taskEnded(TaskOutcome.failed(maps.get(0).task().taskId(), "slow disk died"));
    assertTrue(s.assignTasks().isEmpty(), "no third attempt while the copy runs");
    s.executorLost(copy.executorId(), "killed");
    assertEquals(1, s.pendingTasks(), "with both attempts gone, the task waits again");
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
        "not found", "hostA", 1, false, 0, List.of(1), Map.of()));
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
    JobScheduler s = new JobScheduler(JobPlan.mapReduce("t", splits, M.class, R.class, 1, ""), 2, 100, 2,
        () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 1);
    for (Assignment a : s.assignTasks()) {
      succeed(s, a);
    }
    for (int round = 1; round <= 3; round++) {
      Assignment reduce = s.assignTasks().get(0);
      assertEquals(TaskDescription.Kind.REDUCE, reduce.task().kind());
      s.taskEnded(new TaskOutcome(reduce.task().taskId(), TaskOutcome.State.FETCH_FAILED,
          "connection refused", "hostA", 1, true, 0, List.of(), Map.of()));
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
    JobScheduler s = new JobScheduler(JobPlan.mapReduce("t", splits, M.class, R.class, 2, ""), 2, 100, 1,
        () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 1);
    succeed(s, s.assignTasks().get(0));
    List<Assignment> reduces = s.assignTasks();
    s.taskEnded(new TaskOutcome(reduces.get(0).task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "not found", "hostA", 1, false, 0, List.of(0), Map.of()));
    succeed(s, reduces.get(1));
    succeed(s, s.assignTasks().get(0)); // the map rerun
    Assignment again = s.assignTasks().get(0);
    s.taskEnded(new TaskOutcome(again.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "not found", "hostA", 1, false, 0, List.of(0), Map.of()));
    assertFalse(s.failure().isPresent(), "a reduce succeeded between the two rounds");
  }

  @Test
  void aFetchFailureOfAnOutputRecomputedSinceTheReaderStartedKeepsTheNewOutput() {
    List<InputSplit> splits = List.of(new InputSplit(new byte[] {0}, List.of()));
    JobScheduler s = new JobScheduler(JobPlan.mapReduce("t", splits, M.class, R.class, 2, ""), 2,
        100, 4, () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 2);
    succeed(s, s.assignTasks().get(0));
    List<Assignment> reduces = s.assignTasks();
    assertEquals(2, reduces.size());
    // Both readers found map 0 damaged; the first report reruns it ...
    s.taskEnded(new TaskOutcome(reduces.get(0).task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "corrupt", "hostA", 1, false, 0, List.of(0), Map.of(), "disk"));
    Assignment rerun = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.MAP, rerun.task().kind());
    assertEquals(1, s.damagedMapOutputs(), "map outputs found damaged on a node's disk");
    succeed(s, rerun);
    // ... the second arrives after the new output exists: it read the old file.
    s.taskEnded(new TaskOutcome(reduces.get(1).task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "corrupt", "hostA", 1, false, 0, List.of(0), Map.of(), "disk"));
    List<Assignment> next = s.assignTasks();
    assertEquals(List.of(TaskDescription.Kind.REDUCE, TaskDescription.Kind.REDUCE),
        next.stream().map(a -> a.task().kind()).toList(), "no second rerun of map 0");
    assertEquals(1, s.damagedMapOutputs(), "one damaged output, reported twice");
    next.forEach(a -> succeed(s, a));
    assertTrue(s.isDone());
  }

  @Test
  void aMigratedMapOutputIsFetchedFromItsNewPlaceAndAFailureAtTheOldOneKeepsIt() {
    JobScheduler s = scheduler(2, 2, List.of());
    s.executorAdded("1", "hostA", 7001);
    succeed(s, s.assignTasks().get(0));
    succeed(s, s.assignTasks().get(0));
    s.executorAdded("2", "hostB", 7002);
    assertEquals(List.of(new JobScheduler.ServedOutput(0, 0, 7001),
        new JobScheduler.ServedOutput(0, 1, 7001)), s.mapOutputsOn("hostA"));
    assertEquals(Map.of("hostA", 7001, "hostB", 7002), s.liveShuffleServices());
    List<Assignment> reduces = s.assignTasks();
    assertEquals(2, reduces.size());

    // hostA is leaving: map 0's copy on hostB was confirmed.
    assertTrue(s.moveMapOutput(0, 0, "hostA", 7001, "hostB", 7002));
    assertFalse(s.moveMapOutput(0, 0, "hostA", 7001, "hostB", 7002), "it is no longer there");
    assertFalse(s.moveMapOutput(0, 5, "hostA", 7001, "hostB", 7002), "no such map");
    assertFalse(s.moveMapOutput(1, 0, "hostA", 7001, "hostB", 7002), "the last stage feeds none");
    assertEquals(List.of(new JobScheduler.ServedOutput(0, 1, 7001)), s.mapOutputsOn("hostA"));

    // A reducer started before the move fails to fetch map 0 from hostA: the moved output stays,
    // the reducer runs again and reads it from hostB.
    s.taskEnded(new TaskOutcome(reduces.get(0).task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "connection refused", "hostA", 7001, false, 0, List.of(0), Map.of(), "unreachable"));
    List<Assignment> again = s.assignTasks();
    assertEquals(1, again.size());
    assertEquals(TaskDescription.Kind.REDUCE, again.get(0).task().kind(), "no map rerun");
    assertEquals(List.of(new TaskDescription.ShuffleInput(0, List.of(
        new MapLocation(0, "hostB", 7002), new MapLocation(1, "hostA", 7001)))),
        again.get(0).task().inputs());
    succeed(s, again.get(0));
    succeed(s, reduces.get(1));
    assertTrue(s.isDone());
  }

  /** Out of heap, or user code called System.exit: either way the executor is ending. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {TaskOutcome.EXECUTOR_OUT_OF_MEMORY,
      TaskOutcome.EXECUTOR_EXITING})
  void executorThatIsEndingGetsNoMoreTasks(String metric) {
    JobScheduler s = scheduler(2, 1, List.of());
    s.executorAdded("1", "h", 1);
    s.executorAdded("2", "h", 1);
    List<Assignment> maps = s.assignTasks();
    Assignment onOne = maps.stream().filter(a -> a.executorId().equals("1")).findFirst()
        .orElseThrow();
    s.taskEnded(new TaskOutcome(onOne.task().taskId(), TaskOutcome.State.FAILED,
        "java.lang.OutOfMemoryError", "", 0, false, 0, List.of(), Map.of(metric, 1L)));
    assertEquals(1, s.activeExecutors(), "the executor is on its way out");
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
    assertEquals(List.of(new IdleExecutor("1", 700)), s.idleExecutors());
  }

  @Test
  void stageOutlookShowsRunTimesAndTheStageBehindTheRunningOne() {
    JobScheduler s = scheduler(3, 4, List.of());
    s.executorAdded("1", "hostA", 7001);
    s.executorAdded("2", "hostB", 7002);
    List<Assignment> maps = s.assignTasks();
    now = 2_000;
    succeed(s, maps.get(0));
    List<Assignment> third = s.assignTasks();
    now = 3_000;
    succeed(s, maps.get(1));
    now = 3_500;
    List<StageOutlook> outlook = s.stageOutlook();
    assertEquals(2, outlook.size(), "the map stage and the reduce stage behind it");
    StageOutlook map = outlook.get(0);
    assertTrue(map.submitted());
    assertEquals(0, map.pendingTasks());
    assertEquals(List.of(2_000L, 3_000L), java.util.Arrays.stream(map.finishedMillis()).boxed()
        .toList());
    assertEquals(List.of(1_500L), java.util.Arrays.stream(map.runningElapsedMillis()).boxed()
        .toList(), "the third map, started at 2 s");
    assertEquals(1_500, map.firstFinishAgoMillis());
    assertEquals(500, map.lastFinishAgoMillis());
    StageOutlook reduce = outlook.get(1);
    assertFalse(reduce.submitted());
    assertEquals(List.of(map.id()), reduce.parents());
    assertEquals(4, reduce.tasks());
    assertEquals(3, s.tasksSubmitted());
    succeed(s, third.get(0));
    assertEquals(7, s.tasksSubmitted(), "the reduce stage's 4 tasks queued");
  }

  private static List<InputSplit> splits(int n) {
    List<InputSplit> splits = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, List.of()));
    }
    return splits;
  }

  /** Runs every assignable task to success until none is left; returns them in order. */
  private static List<TaskDescription> drain(JobScheduler s) {
    List<TaskDescription> ran = new java.util.ArrayList<>();
    for (List<Assignment> round = s.assignTasks(); !round.isEmpty(); round = s.assignTasks()) {
      for (Assignment a : round) {
        ran.add(a.task());
        succeed(s, a);
      }
    }
    return ran;
  }

  @Test
  void chainOfThreeShuffleStagesRunsInOrderEachReadingItsParentsShuffle() {
    JobPlan.Builder b = JobPlan.builder("chain");
    JobPlan.Stage in = b.input("in", splits(3), M.class);
    JobPlan.Stage one = b.shuffle("one", 2, R.class, in);
    JobPlan.Stage two = b.shuffle("two", 4, R.class, one);
    JobPlan plan = b.output(b.shuffle("three", 1, R.class, two), "");
    JobScheduler s = new JobScheduler(plan, 2, 2, () -> now, EventLog.disabled());
    s.executorAdded("1", "hostA", 7001);
    s.executorAdded("2", "hostB", 7002);
    assertEquals(3, s.pendingTasks(), "only the input stage is submitted at first");
    List<TaskDescription> ran = drain(s);
    assertTrue(s.isDone());
    assertEquals(List.of(0, 0, 0, 1, 1, 2, 2, 2, 2, 3),
        ran.stream().map(TaskDescription::stageId).toList());
    assertEquals(10, s.tasksDone());
    for (TaskDescription t : ran) {
      if (t.stageId() == 0) {
        assertEquals(TaskDescription.Kind.MAP, t.kind());
        assertEquals(2, t.outputPartitions(), "map output partitioned for stage 'one'");
      } else {
        assertEquals(List.of(t.stageId() - 1), t.inputs().stream()
            .map(TaskDescription.ShuffleInput::shuffleId).toList());
        assertEquals(plan.stage(t.stageId() - 1).tasks(), t.inputs().get(0).mapOutputs().size());
        assertEquals(plan.outputPartitions(t.stageId()), t.outputPartitions());
      }
    }
  }

  @Test
  void joinRunsBothInputStagesThenOneReduceReadingBothShuffles() {
    JobPlan.Builder b = JobPlan.builder("join");
    JobPlan.Stage left = b.input("left", splits(2), M.class);
    JobPlan.Stage right = b.input("right", splits(3), M.class);
    JobPlan plan = b.output(b.shuffle("join", 2, R.class, left, right), "");
    JobScheduler s = new JobScheduler(plan, 1, 2, () -> now, EventLog.disabled());
    assertEquals(5, s.pendingTasks(), "both input stages are submitted at once");
    s.executorAdded("1", "hostA", 7001);
    List<TaskDescription> ran = drain(s);
    TaskDescription join = ran.get(ran.size() - 1);
    assertEquals(2, join.stageId());
    assertEquals(List.of(0, 1), join.inputs().stream()
        .map(TaskDescription.ShuffleInput::shuffleId).toList());
    assertEquals(List.of(2, 3), join.inputs().stream().map(i -> i.mapOutputs().size()).toList());
    assertTrue(s.isDone());
  }

  @Test
  void lostServiceRerunsTheLostOutputsOfEveryStageThatIsNeededAgain() {
    JobPlan.Builder b = JobPlan.builder("chain");
    JobPlan.Stage in = b.input("in", splits(2), M.class);
    JobPlan.Stage one = b.shuffle("one", 2, R.class, in);
    JobPlan plan = b.output(b.shuffle("two", 1, R.class, one), "");
    JobScheduler s = new JobScheduler(plan, 1, 2, () -> now, EventLog.disabled());
    s.executorAdded("a", "hostA", 1);
    for (int i = 0; i < 4; i++) {
      succeed(s, s.assignTasks().get(0)); // both maps and both of stage 'one', all on hostA
    }
    Assignment last = s.assignTasks().get(0);
    assertEquals(2, last.task().stageId());
    s.executorAdded("b", "hostB", 2);
    s.taskEnded(new TaskOutcome(last.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "connection refused", "hostA", 1, true, 1, List.of(), Map.of()));
    s.executorLost("a", "node died");
    List<TaskDescription> ran = drain(s);
    assertEquals(List.of(0, 0, 1, 1, 2), ran.stream().map(TaskDescription::stageId).toList(),
        "stage 'one' reruns need stage 'in' outputs, lost with the same service");
    assertTrue(s.isDone());
    assertFalse(s.failure().isPresent());
  }

  @Test
  void aFetchFailureOnlyRerunsTheOutputsNamedOfTheShuffleNamed() {
    JobPlan.Builder b = JobPlan.builder("join");
    JobPlan.Stage left = b.input("left", splits(2), M.class);
    JobPlan.Stage right = b.input("right", splits(2), M.class);
    JobPlan plan = b.output(b.shuffle("join", 1, R.class, left, right), "");
    JobScheduler s = new JobScheduler(plan, 1, 2, () -> now, EventLog.disabled());
    s.executorAdded("a", "hostA", 1);
    for (int i = 0; i < 4; i++) {
      succeed(s, s.assignTasks().get(0));
    }
    Assignment join = s.assignTasks().get(0);
    s.taskEnded(new TaskOutcome(join.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "corrupt", "hostA", 1, false, 1, List.of(1), Map.of()));
    Assignment rerun = s.assignTasks().get(0);
    assertEquals(1, rerun.task().stageId());
    assertEquals(1, rerun.task().index());
    succeed(s, rerun);
    assertEquals(2, s.assignTasks().get(0).task().stageId());
  }

  @Test
  void planBuilderRefusesShapesItCannotRun() {
    JobPlan.Builder b = JobPlan.builder("bad");
    JobPlan.Stage in = b.input("in", splits(1), M.class);
    b.shuffle("one", 1, R.class, in);
    IllegalArgumentException twice = org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> b.shuffle("two", 1, R.class, in));
    assertTrue(twice.getMessage().contains("stage 'in' already feeds stage 'one'"),
        twice.getMessage());
    JobPlan.Builder c = JobPlan.builder("bad");
    JobPlan.Stage only = c.input("in", splits(1), M.class);
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> c.output(only, "")).getMessage().contains("must be a shuffle stage"));
    JobPlan.Builder d = JobPlan.builder("bad");
    d.input("orphan", splits(1), M.class);
    JobPlan.Stage other = d.input("in", splits(1), M.class);
    JobPlan.Stage end = d.shuffle("end", 1, R.class, other);
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> d.output(end, "")).getMessage().contains("stage 'orphan' of job bad feeds no"));
  }

  /** Stands for a record mapper over a dataset. */
  static final class RM implements dev.tide.driver.job.RecordMapper {
    @Override
    public void map(dev.tide.driver.job.KeyValue record, dev.tide.driver.job.Mapper.MapOutput out) {}
  }

  private static JobPlan overDataset(JobPlan.Dataset data, String name) {
    JobPlan.Builder b = JobPlan.builder(name);
    JobPlan.Stage read = b.input("read", data, RM.class, new byte[] {1});
    return b.output(b.shuffle("sum", 1, R.class, read), "");
  }

  private static void succeedCaching(JobScheduler s, Assignment a, boolean cached) {
    s.taskEnded(TaskOutcome.succeeded(a.task().taskId(),
        Map.of(TaskOutcome.CACHED_BLOCK, cached ? 1L : 0L)));
  }

  @Test
  void laterPlansRunCachedBlocksWhereTheyAreAndLostBlocksAnywhere() {
    JobPlan.Dataset points = JobPlan.Dataset.of("points", splits(4), M.class).cache();
    JobScheduler s = new JobScheduler(1, 2, 4, () -> now, EventLog.disabled());
    s.executorAdded("a", "hostA", 1);
    s.executorAdded("b", "hostB", 2);
    s.runPlan(overDataset(points, "round 1"));
    Map<Integer, String> holder = new java.util.HashMap<>();
    for (List<Assignment> round = s.assignTasks(); !round.isEmpty(); round = s.assignTasks()) {
      for (Assignment a : round) {
        if (a.task().kind() == TaskDescription.Kind.MAP) {
          assertEquals(new TaskDescription.DatasetBlock("points", M.class.getName(), true),
              a.task().dataset());
          holder.put(a.task().index(), a.executorId());
          succeedCaching(s, a, true);
        } else {
          succeed(s, a);
        }
      }
    }
    assertTrue(s.isDone());
    assertEquals(4, holder.size());
    now = 50_000;
    assertTrue(s.idleExecutors().stream().allMatch(IdleExecutor::hasCachedBlocks),
        "both hold blocks: the policy keeps them for cachedExecutorIdleTimeout");

    s.runPlan(overDataset(points, "round 2"));
    List<Assignment> first = s.assignTasks();
    assertEquals(2, first.size());
    assertEquals(2, first.get(0).task().stageId(), "stage ids go on from the previous plan");
    for (Assignment a : first) {
      assertEquals(holder.get(a.task().index()), a.executorId(), "block runs where it is cached");
      succeedCaching(s, a, true);
    }
    s.executorLost("b", "killed");
    List<Integer> ranOnA = new java.util.ArrayList<>();
    for (List<Assignment> round = s.assignTasks(); !round.isEmpty(); round = s.assignTasks()) {
      for (Assignment a : round) {
        assertEquals("a", a.executorId());
        if (a.task().kind() == TaskDescription.Kind.MAP) {
          ranOnA.add(a.task().index());
          succeedCaching(s, a, true);
        } else {
          assertEquals(List.of(2), a.task().inputs().stream()
              .map(TaskDescription.ShuffleInput::shuffleId).toList());
          succeed(s, a);
        }
      }
    }
    assertTrue(s.isDone());
    assertEquals(2, ranOnA.size(), "a ran its own blocks and, once b was gone, b's too");
  }

  @Test
  void aBlockThatDidNotFitIsNotTiedToItsExecutor() {
    JobPlan.Dataset points = JobPlan.Dataset.of("points", splits(1), M.class).cache();
    JobScheduler s = new JobScheduler(1, 2, 4, () -> now, EventLog.disabled());
    s.executorAdded("a", "hostA", 1);
    s.runPlan(overDataset(points, "round 1"));
    succeedCaching(s, s.assignTasks().get(0), false);
    succeed(s, s.assignTasks().get(0));
    assertFalse(s.idleExecutors().get(0).hasCachedBlocks());
    s.runPlan(overDataset(points, "round 2"));
    s.executorAdded("b", "hostB", 2);
    assertEquals(1, s.assignTasks().size(), "any executor may read it again");
  }
}
