package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.output.ApplicationLiveness;
import dev.tide.output.JobOutput;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.time.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plan runner with a real scheduler, a manual clock and the local file system, without
 * executors: the test plays the executors, running each assigned task and reporting its end. A
 * plan's output appears, with {@code _SUCCESS}, only when its last task is done; a failed plan
 * leaves no output; the job's thread learns either through the plan's future.
 */
class PlanRunnerTest {
  private static final String APP = "application_1_0001";

  /** Stands for a job's mapper: the runner only passes its name on. */
  static final class M implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) {}
  }

  /** Stands for a job's reducer. */
  static final class R implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output) {}
  }

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(0);
  private final Configuration conf = new Configuration(false);
  private final List<EventLine> events = new ArrayList<>();
  private final EventLog log = EventLog.disabled();
  private final JobScheduler scheduler;
  private ApplicationLiveness liveness = ApplicationLiveness.UNKNOWN;
  private final PlanRunner runner;

  PlanRunnerTest() {
    log.setListener(events::add);
    scheduler = new JobScheduler(1, 2, 4, clock::millis, log);
    runner = new PlanRunner(conf, APP, () -> liveness, scheduler, log);
  }

  private String output(String name) {
    return dir.resolve(name).toUri().toString();
  }

  private static JobPlan plan(String name, int maps, int reduces, String output) {
    List<InputSplit> splits = new ArrayList<>();
    for (int i = 0; i < maps; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, List.of()));
    }
    return JobPlan.mapReduce(name, splits, M.class, R.class, reduces, output);
  }

  /** Runs every task as a test executor would: a reduce writes and commits its part file. */
  private void runAll() throws IOException {
    for (List<JobScheduler.Assignment> round = scheduler.assignTasks(); !round.isEmpty();
        round = scheduler.assignTasks()) {
      for (JobScheduler.Assignment a : round) {
        TaskDescription task = a.task();
        if (task.kind() == TaskDescription.Kind.REDUCE && !task.outputPath().isEmpty()) {
          try (OutputStream out = JobOutput.createAttemptFile(conf, task.outputPath(),
              task.taskId(), task.index())) {
            out.write(("part " + task.index()).getBytes(StandardCharsets.UTF_8));
          }
          JobOutput.commitTask(conf, task.outputPath(), task.taskId(), task.index());
        }
        clock.advanceMillis(10);
        scheduler.taskEnded(TaskOutcome.succeeded(task.taskId(), Map.of()));
        runner.endIfOver();
      }
    }
  }

  private List<EventLine> events(String name) {
    return events.stream().filter(e -> e.event().equals(name)).toList();
  }

  @Test
  void aPlanThatRunsEveryTaskCommitsItsOutputAndCompletesItsFuture() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    String out = output("counts");
    CompletableFuture<String> done = new CompletableFuture<>();

    assertTrue(runner.start(plan("count", 2, 2, out), done));
    assertTrue(runner.isRunning());
    EventLine start = events("planStart").get(0);
    assertEquals("count", start.get("plan"));
    assertEquals("2", start.get("stages"));
    assertEquals("4", start.get("tasks"));
    assertFalse(Files.exists(dir.resolve("counts").resolve("part-r-00000")),
        "no part file is visible before the plan commits");

    runAll();

    assertTrue(done.isDone());
    assertNull(done.get(), "null: the plan succeeded");
    assertFalse(runner.isRunning());
    assertTrue(Files.exists(dir.resolve("counts").resolve("_SUCCESS")));
    assertEquals("part 1", Files.readString(dir.resolve("counts").resolve("part-r-00001")));
    assertFalse(Files.exists(dir.resolve("counts").resolve("_temporary")));
    assertEquals(4, runner.tasksOfPlans());
    EventLine end = events("planEnd").get(0);
    assertEquals("count", end.get("plan"));
    assertEquals("true", end.get("succeeded"));
  }

  @Test
  void aPlanWhoseTaskFailsTooOftenFailsWithTheTasksMessageAndLeavesNoOutput() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    String out = output("broken");
    CompletableFuture<String> done = new CompletableFuture<>();
    runner.start(plan("broken", 1, 1, out), done);
    assertTrue(Files.isDirectory(dir.resolve("broken")), "prepared at the start");

    for (int attempt = 1; attempt <= 2; attempt++) {
      JobScheduler.Assignment a = scheduler.assignTasks().get(0);
      scheduler.taskEnded(TaskOutcome.failed(a.task().taskId(), "bad record " + attempt));
      runner.endIfOver();
    }

    assertTrue(done.isDone());
    String failure = done.get();
    assertTrue(failure.startsWith("task map 0 failed 2 times"), failure);
    assertTrue(failure.endsWith("bad record 2"), failure);
    assertFalse(Files.exists(dir.resolve("broken")), "a failed plan leaves no output");
    assertEquals("false", events("planEnd").get(0).get("succeeded"));
    assertEquals(0, runner.tasksOfPlans(), "only succeeded plans count");
  }

  @Test
  void anExistingOutputIsRefusedAndThePlanNeverReachesTheScheduler() throws Exception {
    Files.createDirectories(dir.resolve("taken"));
    Files.writeString(dir.resolve("taken").resolve("data"), "someone's");
    CompletableFuture<String> done = new CompletableFuture<>();

    assertFalse(runner.start(plan("late", 1, 1, output("taken")), done));

    assertTrue(done.get().startsWith("plan late could not start: output directory"),
        done.get());
    assertTrue(done.get().endsWith("already exists"), done.get());
    assertEquals("someone's", Files.readString(dir.resolve("taken").resolve("data")));
    assertFalse(runner.isRunning());
    assertEquals(0, scheduler.stageCount(), "the scheduler never got the plan");
    assertTrue(events("planStart").isEmpty());
  }

  @Test
  void theUncommittedOutputOfAnApplicationThatEndedIsStartedOver() throws Exception {
    Path stale = dir.resolve("stale");
    Files.createDirectories(stale.resolve("_temporary"));
    Files.createFile(stale.resolve("_temporary").resolve("_application_application_1_0000"));
    Files.writeString(stale.resolve("half-written"), "x");
    CompletableFuture<String> done = new CompletableFuture<>();

    liveness = app -> true; // the other application may still run: its output is kept
    assertFalse(runner.start(plan("again", 1, 1, output("stale")), done));
    assertTrue(done.get().contains("which is still running"), done.get());

    liveness = app -> !app.equals("application_1_0000"); // it has ended
    CompletableFuture<String> second = new CompletableFuture<>();
    assertTrue(runner.start(plan("again", 1, 1, output("stale")), second));
    assertFalse(Files.exists(stale.resolve("half-written")), "the stale output went");
    assertTrue(Files.exists(stale.resolve("_temporary").resolve("_application_" + APP)),
        "the directory is now this application's");
  }

  @Test
  void aJobEndingUnderARunningPlanFailsThePlanAndDeletesItsOutput() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    CompletableFuture<String> done = new CompletableFuture<>();
    runner.start(plan("cut", 2, 1, output("cut")), done);
    scheduler.assignTasks();

    runner.endIfRunning("killed by the user");

    assertEquals("killed by the user", done.get());
    assertFalse(Files.exists(dir.resolve("cut")));
    assertEquals("false", events("planEnd").get(0).get("succeeded"));
    runner.endIfRunning("again");
    assertEquals(1, events("planEnd").size(), "a plan ends once");
  }

  @Test
  void betweenPlansNothingEnds() {
    runner.endIfOver();
    runner.endIfRunning("the job ended");

    assertTrue(events("planEnd").isEmpty());
    assertNull(runner.plan());
  }

  @Test
  void plansRunInTurnWithStageIdsThatKeepCountingAndTheirTasksSummed() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    CompletableFuture<String> first = new CompletableFuture<>();
    runner.start(plan("first", 2, 1, ""), first);
    runAll();
    assertNull(first.get());

    CompletableFuture<String> second = new CompletableFuture<>();
    runner.start(plan("second", 1, 3, output("second")), second);
    assertEquals("second", runner.plan().name());
    JobScheduler.Assignment a = scheduler.assignTasks().get(0);
    assertEquals(2, a.task().stageId(), "the second plan's first stage follows the first's two");
    scheduler.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
    runAll();

    assertNull(second.get());
    assertEquals(3 + 4, runner.tasksOfPlans());
    assertEquals(2, events("planEnd").size());
    assertTrue(Files.exists(dir.resolve("second").resolve("_SUCCESS")));
  }

  @Test
  void aPlanWithoutOutputCommitsNothingAndSucceeds() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    CompletableFuture<String> done = new CompletableFuture<>();
    runner.start(plan("count only", 3, 1, ""), done);

    runAll();

    assertNull(done.get());
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count(), "nothing written");
    }
  }

  @Test
  void aLostExecutorsTasksRunAgainAndThePlanStillCommits() throws Exception {
    scheduler.executorAdded("1", "node1", 7337);
    CompletableFuture<String> done = new CompletableFuture<>();
    runner.start(plan("survivor", 2, 1, output("survivor")), done);
    JobScheduler.Assignment onLost = scheduler.assignTasks().get(0);

    scheduler.executorLost("1", "its node was decommissioned");
    runner.endIfOver();
    assertFalse(done.isDone(), "losing an executor does not fail the plan");
    scheduler.executorAdded("2", "node2", 7337);
    JobScheduler.Assignment rerun = scheduler.assignTasks().get(0);
    assertEquals(onLost.task().index(), rerun.task().index());
    assertEquals("2", rerun.executorId());
    scheduler.taskEnded(TaskOutcome.succeeded(rerun.task().taskId(), Map.of()));
    runAll();

    assertNull(done.get());
    assertTrue(Files.exists(dir.resolve("survivor").resolve("_SUCCESS")));
  }
}
