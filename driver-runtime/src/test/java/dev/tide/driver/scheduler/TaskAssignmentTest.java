package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.IdleExecutor;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Task assignment alone, over hand-made stages (no stage scheduler): which pending task goes to
 * which free slot, what a lost executor's tasks become, speculation, slots freed by reports, and
 * the events a user reads in the history report.
 */
class TaskAssignmentTest {
  private final ManualClock clock = new ManualClock(1_000);
  private final List<EventLine> events = new ArrayList<>();
  private final EventLog log = EventLog.disabled();

  TaskAssignmentTest() {
    log.setListener(events::add);
  }

  /**
   * The stages of one plan, every stage submitted at once; a stage is runnable when its parents
   * are complete, as the stage scheduler decides. Task ids count from 1; global ids are the
   * local ones plus {@code base}.
   */
  private static final class FakeStages implements TaskAssignment.Stages {
    final JobPlan plan;
    final List<StageProgress> all = new ArrayList<>();
    final int base;
    long nextTaskId = 1;
    long outputs;

    FakeStages(JobPlan plan, int base) {
      this.plan = plan;
      this.base = base;
      for (JobPlan.Stage stage : plan.stages()) {
        StageProgress progress = new StageProgress(stage);
        if (stage.parents().isEmpty()) {
          progress.submit();
        }
        all.add(progress);
      }
    }

    @Override
    public List<StageProgress> all() {
      return all;
    }

    @Override
    public int globalId(int localStageId) {
      return base + localStageId;
    }

    @Override
    public boolean isRunnable(StageProgress stage) {
      if (!stage.submitted) {
        return false;
      }
      for (int parent : stage.stage.parents()) {
        if (!all.get(parent).isComplete()) {
          return false;
        }
      }
      return true;
    }

    @Override
    public TaskDescription newTask(StageProgress stage, int index) {
      JobPlan.Stage s = stage.stage;
      List<String> hosts = s.isInput() ? s.splits().get(index).preferredHosts() : List.of();
      return new TaskDescription(nextTaskId++, s.isInput() ? TaskDescription.Kind.MAP
          : TaskDescription.Kind.REDUCE, globalId(s.id()), index, stage.attempts[index]++,
          s.taskClass(), new byte[0], hosts, List.of(), 1, JobPlan.Partitioning.hash(), "",
          s.dataset() == null ? null : new TaskDescription.DatasetBlock(s.dataset().name(),
              s.dataset().mapperClass(), s.dataset().cached()), s.spec());
    }

    @Override
    public StageProgress stageOf(TaskDescription task) {
      return all.get(task.stageId() - base);
    }

    @Override
    public long outputSequence() {
      return outputs;
    }

    /** Records the output of a task as the stage scheduler would on success. */
    void done(TaskDescription task) {
      done(task, 1_000);
    }

    /** As {@link #done(TaskDescription)}, the attempt having run {@code millis}. */
    void done(TaskDescription task, long millis) {
      stageOf(task).taskSucceeded(millis, 0);
      stageOf(task).setOutput(task.index(), new MapLocation(task.index(), "h", 1), ++outputs);
    }
  }

  private static List<InputSplit> splits(List<List<String>> hosts) {
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < hosts.size(); i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, hosts.get(i)));
    }
    return splits;
  }

  private static JobPlan mapReduce(List<List<String>> hosts, int reduces) {
    return JobPlan.mapReduce("t", splits(hosts), JobSchedulerTest.M.class,
        JobSchedulerTest.R.class, reduces, "");
  }

  private static JobPlan maps(int n) {
    List<List<String>> hosts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      hosts.add(List.of());
    }
    return mapReduce(hosts, 1);
  }

  private TaskAssignment assignment(int slots, FakeStages stages) {
    return new TaskAssignment(slots, clock::millis, log, stages);
  }

  private static Map<String, List<Integer>> byExecutor(List<Assignment> assignments) {
    return assignments.stream().collect(Collectors.groupingBy(Assignment::executorId,
        java.util.TreeMap::new, Collectors.mapping(a -> a.task().index(),
            Collectors.toList())));
  }

  private List<EventLine> events(String name) {
    return events.stream().filter(e -> e.event().equals(name)).toList();
  }

  @Test
  void eachFreeSlotGetsOneTaskAndNoExecutorGetsMoreThanItsSlots() {
    FakeStages stages = new FakeStages(maps(5), 0);
    TaskAssignment tasks = assignment(2, stages);
    tasks.executorAdded("1", "hostA", 7337);
    tasks.executorAdded("2", "hostB", 7337);

    List<Assignment> first = tasks.assignTasks();

    assertEquals(4, first.size(), "two executors of two slots run four tasks");
    assertEquals(Map.of("1", 2L, "2", 2L), first.stream().collect(
        Collectors.groupingBy(Assignment::executorId, Collectors.counting())));
    assertEquals(List.of(), tasks.assignTasks(), "no slot is free");
    assertEquals(4, tasks.runningTasks());
    assertEquals(1, stages.all.get(0).pending.size(), "the fifth task waits");
    assertEquals(4, events("taskStart").size());
    EventLine start = events("taskStart").get(0);
    assertEquals("MAP", start.get("kind"));
    assertEquals("0", start.get("stage"));
  }

  @Test
  void aMapGoesToTheExecutorOnItsPreferredHost() {
    FakeStages stages = new FakeStages(mapReduce(List.of(List.of("hostB"), List.of("hostA")),
        1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("a", "hostA", 1);
    tasks.executorAdded("b", "hostB", 1);

    Map<String, List<Integer>> placed = byExecutor(tasks.assignTasks());

    assertEquals(Map.of("a", List.of(1), "b", List.of(0)), placed,
        "each map runs on the executor of the host that holds its split");
    EventLine start = events("taskStart").stream().filter(e -> e.get("executor").equals("b"))
        .findFirst().orElseThrow();
    assertEquals("hostB", start.get("host"));
  }

  @Test
  void aMapWithoutALocalExecutorStillRunsRatherThanWait() {
    FakeStages stages = new FakeStages(mapReduce(List.of(List.of("hostZ")), 1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("a", "hostA", 1);

    List<Assignment> placed = tasks.assignTasks();

    assertEquals(1, placed.size());
    assertEquals("a", placed.get(0).executorId());
  }

  @Test
  void aReduceWaitsUntilEveryMapOutputExists() {
    FakeStages stages = new FakeStages(maps(2), 0);
    TaskAssignment tasks = assignment(4, stages);
    tasks.executorAdded("1", "hostA", 1);
    List<Assignment> maps = tasks.assignTasks();
    assertEquals(2, maps.size());
    stages.all.get(1).submit(); // the stage scheduler queues the reduce stage early

    assertEquals(List.of(), tasks.assignTasks(), "the reduce's input does not exist yet");
    stages.done(maps.get(0).task());
    tasks.taskEnded(TaskOutcome.succeeded(maps.get(0).task().taskId(), Map.of()));
    assertEquals(List.of(), tasks.assignTasks(), "one map output is still missing");
    stages.done(maps.get(1).task());
    tasks.taskEnded(TaskOutcome.succeeded(maps.get(1).task().taskId(), Map.of()));

    List<Assignment> reduce = tasks.assignTasks();
    assertEquals(1, reduce.size());
    assertEquals(TaskDescription.Kind.REDUCE, reduce.get(0).task().kind());
  }

  @Test
  void aLostExecutorsTasksGoBackToTheFrontOfTheQueueAndRunElsewhere() {
    FakeStages stages = new FakeStages(maps(3), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("2", "hostB", 1);
    Map<String, List<Integer>> first = byExecutor(tasks.assignTasks());
    int onOne = first.get("1").get(0);

    tasks.executorLost("1", "its container was preempted");

    assertEquals(onOne, stages.all.get(0).pending.peekFirst(), "requeued at the front");
    assertEquals(1, tasks.runningTasks());
    EventLine lost = events("taskEnd").get(0);
    assertEquals("EXECUTOR_LOST", lost.get("result"));
    assertEquals("1", lost.get("executor"));
    assertEquals(1, tasks.activeExecutors());

    tasks.executorAdded("3", "hostC", 1);
    List<Assignment> again = tasks.assignTasks();
    assertEquals(1, again.size());
    assertEquals("3", again.get(0).executorId());
    assertEquals(onOne, again.get(0).task().index());
    assertEquals(1, again.get(0).task().attempt(), "the rerun is the task's second attempt");
  }

  @Test
  void losingAnUnknownExecutorChangesNothing() {
    FakeStages stages = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    tasks.assignTasks();

    tasks.executorLost("9", "never registered");

    assertEquals(1, tasks.runningTasks());
    assertTrue(events("taskEnd").isEmpty());
  }

  @Test
  void executorsPendingRemovalOrExitingGetNoTasksAndDoNotCountAsActive() {
    FakeStages stages = new FakeStages(maps(4), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("2", "hostB", 1);
    tasks.executorAdded("3", "hostC", 1);
    tasks.markPendingRemoval(List.of("1", "unknown"));
    assertTrue(tasks.isPendingRemoval("1"));
    assertFalse(tasks.isPendingRemoval("2"));
    assertFalse(tasks.isPendingRemoval("unknown"));

    List<Assignment> placed = tasks.assignTasks();
    assertEquals(List.of("2", "3"), new ArrayList<>(byExecutor(placed).keySet()));
    assertEquals(2, tasks.activeExecutors());

    // Executor 2's task ran out of heap: it exits after its report and gets nothing more.
    Assignment onTwo = placed.stream().filter(a -> a.executorId().equals("2")).findFirst()
        .orElseThrow();
    tasks.taskEnded(new TaskOutcome(onTwo.task().taskId(), TaskOutcome.State.FAILED,
        "java.lang.OutOfMemoryError", "", 0, false, 0, List.of(),
        Map.of(TaskOutcome.EXECUTOR_OUT_OF_MEMORY, 1L)));
    assertEquals(1, tasks.activeExecutors(), "only executor 3 can take tasks");
    assertEquals(List.of(), tasks.assignTasks(), "executor 3 is busy, 1 and 2 take nothing");
    assertTrue(tasks.idleExecutors().isEmpty(), "an exiting executor is not idle either");
  }

  @Test
  void anExecutorIsIdleSinceItsLastTaskEndedAndBusyOnesAreNotIdle() {
    FakeStages stages = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    clock.advanceMillis(500);
    tasks.executorAdded("2", "hostB", 1);
    Assignment a = tasks.assignTasks().get(0);
    assertEquals("1", a.executorId(), "the executor added first is offered first");
    assertEquals(List.of(new IdleExecutor("2", 1_500)), tasks.idleExecutors());

    clock.advanceMillis(2_000);
    tasks.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));

    assertEquals(List.of(new IdleExecutor("1", 3_500), new IdleExecutor("2", 1_500)),
        tasks.idleExecutors());
    assertEquals(2_000, tasks.taskMillis(), "the attempt ran two seconds");
  }

  @Test
  void theReportOfATaskRecordsItsMetricsAndTheSlotIsFreedForTheNextTask() {
    FakeStages stages = new FakeStages(maps(2), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    Assignment first = tasks.assignTasks().get(0);
    clock.advanceMillis(300);

    TaskAssignment.Ended ended = tasks.taskEnded(TaskOutcome.succeeded(first.task().taskId(),
        Map.of("records", 42L)));

    assertNotNull(ended);
    assertEquals("1", ended.attempt().executorId());
    assertEquals("hostA", ended.executor().host);
    assertFalse(ended.beaten());
    EventLine end = events("taskEnd").get(0);
    assertEquals("SUCCEEDED", end.get("result"));
    assertEquals("42", end.get("records"));
    assertNull(end.get("reason"), "a success has no reason");
    Assignment second = tasks.assignTasks().get(0);
    assertEquals("1", second.executorId());
    assertEquals(1, second.task().index());
  }

  @Test
  void aFailureReportCarriesItsReasonCutToAThousandCharacters() {
    FakeStages stages = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    Assignment a = tasks.assignTasks().get(0);

    tasks.taskEnded(TaskOutcome.failed(a.task().taskId(), "x".repeat(1500)));

    String reason = events("taskEnd").get(0).get("reason");
    assertEquals(1003, reason.length());
    assertTrue(reason.endsWith("..."));
  }

  @Test
  void aLateReportOfAnAttemptAlreadyRequeuedIsIgnored() {
    FakeStages stages = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    Assignment a = tasks.assignTasks().get(0);
    tasks.executorLost("1", "lost");

    assertNull(tasks.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of())));
    assertEquals(1, events("taskEnd").size(), "only the EXECUTOR_LOST end is recorded");
  }

  @Test
  void attemptsOfAnEarlierPlanOnlyFreeTheirSlotsWhenTheyReport() {
    FakeStages first = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(1, first);
    tasks.executorAdded("1", "hostA", 1);
    Assignment old = tasks.assignTasks().get(0);

    tasks.newPlan();
    first.all.get(0).pending.add(0); // the next plan's stage has work again
    assertEquals(0, tasks.runningTasks(), "the old attempt is a stray");
    assertEquals(List.of(), tasks.assignTasks(), "its slot stays busy until it reports");
    assertNull(tasks.taskEnded(TaskOutcome.succeeded(old.task().taskId(), Map.of())));
    assertEquals(1, tasks.assignTasks().size(), "the freed slot takes the new plan's task");
  }

  @Test
  void aStragglerGetsOneSpeculativeCopyOnAnotherHost() {
    FakeStages stages = new FakeStages(maps(3), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.speculation(new SpeculationRule(0.5, 1.5, 100));
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("2", "hostB", 1);
    tasks.executorAdded("3", "hostA", 1);
    Map<Integer, Assignment> byIndex = new java.util.HashMap<>();
    for (Assignment a : tasks.assignTasks()) {
      byIndex.put(a.task().index(), a);
    }
    clock.advanceMillis(1_000);
    // Maps 1 and 2 finish in 1 s; map 0 on executor 1 (hostA) keeps running.
    Assignment straggling = byIndex.values().stream().filter(a -> a.executorId().equals("1"))
        .findFirst().orElseThrow();
    for (Assignment a : byIndex.values()) {
      if (a != straggling) {
        stages.done(a.task());
        tasks.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
      }
    }
    assertFalse(tasks.findStragglers(), "1 s is not over 1.5 x the median yet");
    clock.advanceMillis(1_000);

    assertTrue(tasks.findStragglers());
    List<Assignment> copies = tasks.assignTasks();

    assertEquals(1, copies.size(), "one copy only");
    Assignment copy = copies.get(0);
    assertEquals(straggling.task().index(), copy.task().index());
    assertEquals("2", copy.executorId(), "on the executor of another host, not hostA's 3");
    assertEquals(1, copy.task().attempt());
    EventLine speculated = events("taskSpeculated").get(0);
    assertEquals(Long.toString(straggling.task().taskId()), speculated.get("of"));
    assertEquals("2000", speculated.get("runningMs"));
    assertEquals("1500", speculated.get("thresholdMs"));
    assertFalse(tasks.findStragglers(), "a task gets at most one copy");
    assertEquals(List.of(), tasks.assignTasks());

    // The copy wins; the original's later success is beaten and changes nothing.
    stages.done(copy.task());
    tasks.taskEnded(TaskOutcome.succeeded(copy.task().taskId(), Map.of()));
    TaskAssignment.Ended late = tasks.taskEnded(
        TaskOutcome.succeeded(straggling.task().taskId(), Map.of()));
    assertTrue(late.beaten());
    assertEquals("true", events("taskEnd").get(events("taskEnd").size() - 1).get("beaten"));
  }

  @Test
  void aStragglersCopyGoesToItsOwnHostOnlyWhenNoOtherHostHasAFreeSlot() {
    FakeStages stages = new FakeStages(maps(2), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.speculation(new SpeculationRule(0.5, 1.0, 10));
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("2", "hostB", 1);
    List<Assignment> both = tasks.assignTasks();
    Assignment onA = both.stream().filter(a -> a.executorId().equals("1")).findFirst()
        .orElseThrow();
    Assignment onB = both.stream().filter(a -> a.executorId().equals("2")).findFirst()
        .orElseThrow();
    clock.advanceMillis(100);
    stages.done(onB.task(), 100);
    tasks.taskEnded(TaskOutcome.succeeded(onB.task().taskId(), Map.of()));
    tasks.markPendingRemoval(List.of("2")); // hostB's only executor takes nothing more
    clock.advanceMillis(500);
    assertTrue(tasks.findStragglers());

    tasks.executorAdded("3", "hostA", 1);
    List<Assignment> copy = tasks.assignTasks();

    assertEquals(1, copy.size());
    assertEquals("3", copy.get(0).executorId(), "same host, since no other host is free");
    assertEquals(onA.task().index(), copy.get(0).task().index());
  }

  @Test
  void withoutARuleNoStragglerIsEverFound() {
    FakeStages stages = new FakeStages(maps(2), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    tasks.assignTasks();
    clock.advanceMillis(3_600_000);

    assertFalse(tasks.findStragglers());
  }

  @Test
  void aFailedAttemptIsNotRequeuedWhileItsCopyRuns() {
    FakeStages stages = new FakeStages(maps(1), 0);
    TaskAssignment tasks = assignment(2, stages);
    tasks.executorAdded("1", "hostA", 1);
    Assignment a = tasks.assignTasks().get(0);
    StageProgress stage = stages.all.get(0);
    stage.pending.add(0); // a second attempt is queued (as a speculative copy would be)
    Assignment copy = tasks.assignTasks().get(0);
    assertEquals(a.task().index(), copy.task().index());

    tasks.taskEnded(TaskOutcome.failed(a.task().taskId(), "disk died"));
    tasks.requeueUnlessRunning(stage, 0);
    assertTrue(stage.pending.isEmpty(), "the copy still runs: nothing is queued");

    tasks.taskEnded(TaskOutcome.failed(copy.task().taskId(), "disk died too"));
    tasks.requeueUnlessRunning(stage, 0);
    assertEquals(List.of(0), List.copyOf(stage.pending));
  }

  @Test
  void aCachedBlockRunsOnTheExecutorHoldingItAndWaitsForIt() {
    JobPlan.Dataset points = JobPlan.Dataset.of("points", splits(List.of(List.of(), List.of())),
        JobSchedulerTest.M.class).cache();
    JobPlan.Builder b = JobPlan.builder("p");
    JobPlan.Stage read = b.input("read", points, JobSchedulerTest.RM.class, new byte[0]);
    JobPlan plan = b.output(b.shuffle("sum", 1, JobSchedulerTest.R.class, read), "");
    FakeStages stages = new FakeStages(plan, 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("2", "hostB", 1);
    Map<Integer, String> holder = new java.util.HashMap<>();
    for (Assignment a : tasks.assignTasks()) {
      holder.put(a.task().index(), a.executorId());
      TaskOutcome ok = TaskOutcome.succeeded(a.task().taskId(),
          Map.of(TaskOutcome.CACHED_BLOCK, 1L));
      tasks.taskEnded(ok);
      tasks.noteCachedBlock(a.task(), a.executorId(), ok);
    }
    assertTrue(tasks.idleExecutors().stream().allMatch(IdleExecutor::hasCachedBlocks));

    // The same dataset read again: each block runs where it is cached, not on the new
    // executor offered first.
    tasks.executorLost("1", "gone");
    tasks.executorAdded("1", "hostA", 1);
    tasks.executorAdded("3", "hostC", 1);
    StageProgress again = stages.all.get(0);
    again.pending.add(0);
    again.pending.add(1);
    Map<String, List<Integer>> placed = byExecutor(tasks.assignTasks());

    assertEquals("2", holder.get(1), "executor 2 read block 1");
    assertEquals(Map.of("2", List.of(1), "1", List.of(0)), placed,
        "block 1 runs where it is cached; block 0, its holder lost, on the first free one");
  }

  @Test
  void aLostExecutorTakesItsCachedBlocksAndTheEventSaysHowMany() {
    JobPlan.Dataset points = JobPlan.Dataset.of("points", splits(List.of(List.of())),
        JobSchedulerTest.M.class).cache();
    JobPlan.Builder b = JobPlan.builder("p");
    JobPlan.Stage read = b.input("read", points, JobSchedulerTest.RM.class, new byte[0]);
    FakeStages stages = new FakeStages(b.output(b.shuffle("sum", 1, JobSchedulerTest.R.class,
        read), ""), 0);
    TaskAssignment tasks = assignment(1, stages);
    tasks.executorAdded("1", "hostA", 1);
    Assignment a = tasks.assignTasks().get(0);
    TaskOutcome ok = TaskOutcome.succeeded(a.task().taskId(), Map.of(TaskOutcome.CACHED_BLOCK,
        1L));
    tasks.taskEnded(ok);
    tasks.noteCachedBlock(a.task(), "1", ok);

    tasks.executorLost("1", "node lost");

    EventLine lost = events("cachedBlocksLost").get(0);
    assertEquals("1", lost.get("executor"));
    assertEquals("1", lost.get("blocks"));
  }

  @Test
  void runningTimesAreReportedByGlobalStageId() {
    FakeStages stages = new FakeStages(maps(2), 10);
    TaskAssignment tasks = assignment(2, stages);
    tasks.executorAdded("1", "hostA", 1);
    List<Assignment> started = tasks.assignTasks();
    assertEquals(10, started.get(0).task().stageId(), "ids are the plan's base plus local ids");
    clock.advanceMillis(250);

    Map<Integer, List<Long>> elapsed = tasks.runningElapsedByStage(clock.millis());

    assertEquals(Map.of(10, List.of(250L, 250L)), elapsed);
    assertTrue(tasks.hasRunning(0));
    assertFalse(tasks.hasRunning(1));
    assertTrue(tasks.isRunning(0, started.get(0).task().index()));
  }
}
