package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.SchedulerView;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler.Assignment;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.time.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Stage scheduling (the DAG): when stages are submitted and complete, the map-output table the
 * reducers read, what a fetch failure reruns, the bounds that end a job, stage ids over several
 * plans, and the demand the allocation policy reads through {@link SchedulerView}. A manual
 * clock; the test plays the executors.
 */
class StageSchedulingTest {
  private final ManualClock clock = new ManualClock(0);
  private final List<EventLine> events = new ArrayList<>();
  private final EventLog log = EventLog.disabled();

  StageSchedulingTest() {
    log.setListener(events::add);
  }

  private static List<InputSplit> splits(int n, List<String> hosts) {
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, hosts));
    }
    return splits;
  }

  private static JobPlan mapReduce(String name, int maps, int reduces) {
    return JobPlan.mapReduce(name, splits(maps, List.of()), JobSchedulerTest.M.class,
        JobSchedulerTest.R.class, reduces, "");
  }

  private JobScheduler scheduler(int slots, int maxAttempts, int rounds) {
    return new JobScheduler(slots, maxAttempts, rounds, clock::millis, log);
  }

  private List<EventLine> events(String name) {
    return events.stream().filter(e -> e.event().equals(name)).toList();
  }

  private static void succeed(JobScheduler s, Assignment a) {
    s.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
  }

  /** Runs the first stage's maps on whatever executors there are, up to its completion. */
  private static void runMaps(JobScheduler s) {
    while (s.stageIndex() == 1) {
      for (Assignment a : s.assignTasks()) {
        succeed(s, a);
      }
    }
  }

  private static TaskOutcome fetchFailed(Assignment reader, String host, int port,
      boolean wholeService, int shuffle, List<Integer> maps, String cause) {
    return new TaskOutcome(reader.task().taskId(), TaskOutcome.State.FETCH_FAILED,
        "could not fetch", host, port, wholeService, shuffle, maps, Map.of(), cause);
  }

  @Test
  void theReduceStageIsSubmittedOnceEveryMapOutputExistsAndReadsWhereEachIsServed() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 2, 1));
    s.executorAdded("a", "nodeA", 7001);
    s.executorAdded("b", "nodeB", 7002);
    assertEquals(List.of("0"), events("stageSubmitted").stream().map(e -> e.get("stage"))
        .toList(), "only the input stage at first");
    assertEquals(2, s.tasksSubmitted());

    List<Assignment> maps = s.assignTasks();
    assertEquals(2, maps.size());
    succeed(s, maps.get(0));
    assertEquals(1, events("stageSubmitted").size(), "one map output is still missing");
    succeed(s, maps.get(1));

    EventLine reduceStage = events("stageSubmitted").get(1);
    assertEquals("1", reduceStage.get("stage"));
    assertEquals("[0]", reduceStage.get("parents"));
    assertEquals("0", events("stageCompleted").get(0).get("stage"));
    Assignment reduce = s.assignTasks().get(0);
    List<MapLocation> expected = new ArrayList<>();
    for (Assignment map : maps) {
      boolean onA = map.executorId().equals("a");
      expected.add(new MapLocation(map.task().index(), onA ? "nodeA" : "nodeB",
          onA ? 7001 : 7002));
    }
    expected.sort(java.util.Comparator.comparingInt(MapLocation::mapId));
    assertEquals(expected, reduce.task().inputs().get(0).mapOutputs(),
        "the reduce reads each map's output from the service of the node that ran it");
    assertEquals(3, s.tasksSubmitted());
  }

  @Test
  void aFetchFailureResubmitsTheLostMapOutputBeforeTheReduceRunsAgain() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 3, 1));
    s.executorAdded("a", "nodeA", 7001);
    runMaps(s);
    Assignment reduce = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.REDUCE, reduce.task().kind());

    s.taskEnded(fetchFailed(reduce, "nodeA", 7001, false, 0, List.of(2), "missing"));

    EventLine lost = events("mapOutputLost").get(0);
    assertEquals("2", lost.get("map"));
    assertEquals("0", lost.get("shuffle"));
    assertEquals("nodeA", lost.get("host"));
    assertEquals("missing", lost.get("cause"));
    assertEquals(2, s.pendingTasks(), "the map and the reduce wait");
    assertEquals(1, s.runnablePendingTasks(), "only the map can run: the reduce needs it");
    Assignment rerun = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.MAP, rerun.task().kind());
    assertEquals(2, rerun.task().index());
    assertEquals(1, rerun.task().attempt());
    succeed(s, rerun);
    Assignment again = s.assignTasks().get(0);
    assertEquals(TaskDescription.Kind.REDUCE, again.task().kind());
    succeed(s, again);
    assertTrue(s.isDone());
    assertEquals(1, events("stageCompleted").stream().filter(e -> e.get("stage").equals("0"))
        .count(), "a stage completes once in the log, however often its outputs rerun");
  }

  @Test
  void aLostShuffleServiceRerunsEveryOutputItServed() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 4, 1));
    s.executorAdded("a", "nodeA", 7001);
    s.executorAdded("b", "nodeB", 7002);
    runMaps(s);
    Assignment reduce = s.assignTasks().get(0);
    long onA = events("taskEnd").stream().filter(e -> e.get("executor").equals("a")
        && e.get("kind").equals("MAP")).count();

    s.taskEnded(fetchFailed(reduce, "nodeA", 7001, true, 0, List.of(), "unreachable"));

    assertEquals(onA, events("mapOutputLost").size(), "every output nodeA served");
    assertTrue(events("mapOutputLost").stream().allMatch(e -> e.get("host").equals("nodeA")));
    assertEquals(0, s.damagedMapOutputs());
  }

  @Test
  void outputsFoundDamagedOnDiskAreCounted() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 2, 1));
    s.executorAdded("a", "nodeA", 7001);
    runMaps(s);
    Assignment reduce = s.assignTasks().get(0);

    s.taskEnded(fetchFailed(reduce, "nodeA", 7001, false, 0, List.of(0, 1),
        TaskOutcome.DAMAGED_ON_DISK));

    assertEquals(2, s.damagedMapOutputs());
  }

  @Test
  void aFetchFailureOfAShuffleTheStageDoesNotReadFailsTheJob() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 1, 1));
    s.executorAdded("a", "nodeA", 7001);
    runMaps(s);
    Assignment reduce = s.assignTasks().get(0);

    s.taskEnded(fetchFailed(reduce, "nodeA", 7001, false, 5, List.of(0), "missing"));

    assertTrue(s.failure().isPresent());
    assertTrue(s.failure().get().contains("reported a fetch failure of shuffle 5, which its"
        + " stage does not read"), s.failure().get());
    assertEquals(List.of(), s.assignTasks(), "a failed job assigns nothing more");
    assertFalse(s.findStragglers());
  }

  @Test
  void moreFetchFailuresThanTheTasksCouldCauseFailTheJob() {
    // One map, one reduce, two attempts: at most max(4, 2 x 1) fetch failures.
    JobScheduler s = scheduler(1, 2, 100);
    s.runPlan(mapReduce("wc", 1, 1));
    s.executorAdded("a", "nodeA", 7001);
    runMaps(s);
    for (int i = 0; i < 5 && s.failure().isEmpty(); i++) {
      List<Assignment> next = s.assignTasks();
      Assignment a = next.get(0);
      if (a.task().kind() == TaskDescription.Kind.MAP) {
        succeed(s, a);
        a = s.assignTasks().get(0);
      }
      s.taskEnded(fetchFailed(a, "nodeA", 7001, false, 0, List.of(0), "network"));
    }

    assertTrue(s.failure().isPresent());
    assertTrue(s.failure().get().startsWith("too many shuffle fetch failures (5)"),
        s.failure().get());
  }

  @Test
  void laterPlansContinueTheStageIdsAndTheirProgressIsTheirOwn() {
    JobScheduler s = scheduler(2, 2, 4);
    s.executorAdded("a", "nodeA", 7001);
    s.runPlan(mapReduce("first", 2, 1));
    while (!s.isDone()) {
      for (Assignment a : s.assignTasks()) {
        succeed(s, a);
      }
    }
    assertEquals(3, s.tasksDone());

    s.runPlan(mapReduce("second", 3, 2));

    assertEquals(2, s.stageCount());
    assertEquals(1, s.stageIndex(), "the second plan's first stage");
    assertEquals(0, s.tasksDone());
    assertEquals(5, s.tasksTotal());
    EventLine submitted = events("stageSubmitted").get(events("stageSubmitted").size() - 1);
    assertEquals("2", submitted.get("stage"), "after the first plan's stages 0 and 1");
    Assignment first = s.assignTasks().get(0);
    assertEquals(2, first.task().stageId());
    assertEquals(3 + 3, s.tasksSubmitted(), "submissions of every plan");
  }

  @Test
  void anAttemptOfAnEarlierPlanStillRunningOnlyFreesItsSlot() {
    JobScheduler s = scheduler(1, 2, 4);
    s.executorAdded("a", "nodeA", 7001);
    s.runPlan(mapReduce("first", 1, 1));
    Assignment old = s.assignTasks().get(0);

    s.runPlan(mapReduce("second", 1, 1));
    assertEquals(List.of(), s.assignTasks(), "the old attempt holds the only slot");
    succeed(s, old);

    assertEquals(0, s.tasksDone(), "its success is not the new plan's");
    Assignment next = s.assignTasks().get(0);
    assertEquals(2, next.task().stageId());
  }

  @Test
  void theAllocationPolicySeesPendingWorkAndItsLocalityThroughTheView() {
    JobScheduler scheduler = scheduler(1, 2, 4);
    SchedulerView view = scheduler;
    scheduler.runPlan(JobPlan.mapReduce("local", splits(3, List.of("nodeA", "nodeB")),
        JobSchedulerTest.M.class, JobSchedulerTest.R.class, 2, ""));

    assertEquals(3, view.pendingTasks());
    assertEquals(0, view.runningTasks());
    assertEquals(3, view.localityAwareTasks());
    assertEquals(Map.of("nodeA", 3, "nodeB", 3), view.hostToLocalTaskCount());
    assertEquals(2, view.stageOutlook().size(), "both stages lie ahead");
    assertEquals(3, view.tasksSubmitted());

    scheduler.executorAdded("a", "nodeA", 7001);
    clock.advanceMillis(50);
    scheduler.assignTasks();

    assertEquals(2, view.pendingTasks());
    assertEquals(1, view.runningTasks());
    assertEquals(Map.of("nodeA", 2, "nodeB", 2), view.hostToLocalTaskCount());
    assertEquals(1, view.activeExecutors());
    assertEquals(List.of(), view.idleExecutors());
    assertEquals(1, view.stageOutlook().get(0).runningTasks());
  }

  @Test
  void aStageOutlookSkipsCompletedStagesAndShowsWhenTasksFinished() {
    JobScheduler s = scheduler(1, 2, 4);
    s.runPlan(mapReduce("wc", 2, 1));
    s.executorAdded("a", "nodeA", 7001);
    clock.advanceMillis(1_000);
    Assignment first = s.assignTasks().get(0);
    clock.advanceMillis(300);
    succeed(s, first);
    clock.advanceMillis(200);

    var map = s.stageOutlook().get(0);
    assertEquals(0, map.id());
    assertTrue(map.submitted());
    assertEquals(List.of(300L), java.util.Arrays.stream(map.finishedMillis()).boxed().toList());
    assertEquals(200, map.firstFinishAgoMillis());

    succeed(s, s.assignTasks().get(0));
    assertEquals(List.of(1), s.stageOutlook().stream().map(o -> o.id()).toList(),
        "the completed map stage is no longer ahead");
  }
}
