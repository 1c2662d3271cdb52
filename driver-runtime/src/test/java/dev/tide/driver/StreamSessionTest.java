package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.driver.streaming.StreamDriver;
import dev.tide.rpc.TaskOutcome;
import dev.tide.time.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's side of a stream, without a driver thread or executors: a fake host runs the
 * hooks' work at once and records what the stream asks of the driver; a real scheduler runs
 * each batch's plan, the test playing the executors. Batches are recorded in order, the status
 * line follows them, the streaming policy sizes the executors before each batch and picks the
 * longest-idle executors to remove.
 */
class StreamSessionTest {
  @TempDir Path staging;
  private final ManualClock clock = new ManualClock(100_000);
  private final Configuration conf = new Configuration(false);
  private final List<EventLine> events = new ArrayList<>();
  private final EventLog log = EventLog.disabled();
  private final JobScheduler scheduler;
  private final ExecutorRegistry registry =
      new ExecutorRegistry(new ExecutorHeartbeats(java.time.Duration.ofSeconds(30)));
  private final FakeHost host = new FakeHost();
  /** Millis each task of a batch's plan runs, on the manual clock. */
  private long taskMillis = 400;

  StreamSessionTest() {
    log.setListener(events::add);
    scheduler = new JobScheduler(1, 2, 4, clock::millis, log);
    conf.set(TideOptions.STREAMING_BATCH_INTERVAL.key(), "10s");
  }

  /** What the stream asked of the driver. */
  private final class FakeHost implements StreamSession.Host {
    int target = -1;
    final List<Integer> requested = new ArrayList<>();
    final List<List<String>> removed = new ArrayList<>();
    final List<String> removalReasons = new ArrayList<>();
    int statusChanges;

    @Override
    public <T> T call(Supplier<T> work) {
      return work.get();
    }

    @Override
    public int target() {
      return target;
    }

    @Override
    public void requestTarget(int target) {
      this.target = target;
      requested.add(target);
    }

    @Override
    public void removeExecutors(List<String> executorIds, String why) {
      scheduler.markPendingRemoval(executorIds);
      removed.add(List.copyOf(executorIds));
      removalReasons.add(why);
    }

    @Override
    public void statusChanged() {
      statusChanges++;
    }
  }

  /** Runs a batch's plan at once on the scheduler, every task taking {@link #taskMillis}. */
  private void runPlan(JobPlan plan, java.util.concurrent.CompletableFuture<String> done) {
    scheduler.runPlan(plan);
    for (List<JobScheduler.Assignment> round = scheduler.assignTasks(); !round.isEmpty();
        round = scheduler.assignTasks()) {
      clock.advanceMillis(taskMillis);
      for (JobScheduler.Assignment a : round) {
        scheduler.taskEnded(TaskOutcome.succeeded(a.task().taskId(), Map.of()));
      }
    }
    done.complete(scheduler.failure().orElse(null));
  }

  private StreamSession session() {
    PlanSession plans = new PlanSession(new JobContext(conf, List.of("stream")), this::runPlan);
    return new StreamSession(conf, scheduler, registry, log, clock::millis, plans, host);
  }

  private void executors(int n) {
    for (int i = 1; i <= n; i++) {
      scheduler.executorAdded(Integer.toString(i), "node" + i, 7337);
      clock.advanceMillis(100);
    }
  }

  private static JobPlan batchPlan(long batchTime) {
    List<InputSplit> splits = List.of(new InputSplit(new byte[] {1}, List.of()),
        new InputSplit(new byte[] {2}, List.of()));
    return JobPlan.mapReduce("batch " + batchTime, splits, PlanRunnerTest.M.class,
        PlanRunnerTest.R.class, 1, "");
  }

  private void seedPolicy(int initial, int min, int max) {
    conf.setBoolean(TideOptions.SDA_ENABLED.key(), true);
    conf.set(TideOptions.SDA_POLICY.key(), "seed");
    conf.setInt(TideOptions.SDA_INITIAL_EXECUTORS.key(), initial);
    conf.setInt(TideOptions.SDA_MIN_EXECUTORS.key(), min);
    conf.setInt(TideOptions.SDA_MAX_EXECUTORS.key(), max);
    conf.setInt(TideOptions.SDA_DELAY_ROUNDS.key(), 0);
    conf.setInt(TideOptions.SDA_RELEASE_ROUNDS.key(), 1);
    conf.setDouble(TideOptions.SDA_RESERVE_RATE.key(), 0);
  }

  private List<EventLine> events(String name) {
    return events.stream().filter(e -> e.event().equals(name)).toList();
  }

  private static CompletedBatch completed(long batchTime, long processingMillis,
      boolean delayed) {
    return new CompletedBatch(batchTime, 1_000, processingMillis, 0, delayed, 1.5, 4, false, 3);
  }

  @Test
  void withTheStreamingPolicyOnTheInitialExecutorsAreAskedForBeforeTheFirstBatch() {
    seedPolicy(3, 1, 8);
    StreamSession stream = session();

    stream.start();

    assertTrue(stream.allocates());
    assertEquals(List.of(3), host.requested);
    assertEquals("waiting for the first batch", stream.line());
  }

  @Test
  void withTheStreamingPolicyOffNothingIsAskedForAndTheBatchPolicyStays() {
    StreamSession stream = session();

    stream.start();

    assertFalse(stream.allocates());
    assertEquals(List.of(), host.requested);
  }

  @Test
  void batchAndStreamingAllocationTogetherAreRefusedNamingBothKeys() {
    seedPolicy(1, 1, 4);
    conf.setBoolean(TideOptions.DA_ENABLED.key(), true);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> session().start());

    assertTrue(e.getMessage().contains(TideOptions.DA_ENABLED.key() + "=true"), e.getMessage());
    assertTrue(e.getMessage().contains(TideOptions.SDA_ENABLED.key()), e.getMessage());
  }

  @Test
  void batchesAreRecordedInTheOrderTheyRunAndTheStatusLineFollowsThem() throws Exception {
    executors(2);
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();

    for (long batch = 10_000; batch <= 30_000; batch += 10_000) {
      hooks.batchSubmitted(batch, batch / 10, 0, 0);
      assertEquals("batch " + batch + " submitted, " + (batch / 10_000 - 1) + " done"
          + (batch == 10_000 ? "" : ", last " + (batch / 10 - 1_000) + " records in 800 ms"
              + " (delay 0 ms)"), stream.line());
      hooks.batchStarted(batch, 5);
      assertTrue(stream.line().startsWith("batch " + batch + " running"), stream.line());
      StreamDriver.PlanMeasure measure = hooks.runPlan(batchPlan(batch));
      assertEquals(1.2, measure.taskSeconds(), 1e-9, "three tasks of 400 ms");
      hooks.batchCompleted(new CompletedBatch(batch, batch / 10, 800, 0, false,
          measure.taskSeconds(), measure.executorsAtStart(), measure.executorsChanged(), 3));
    }

    assertEquals(3, stream.batchesDone());
    assertEquals("3 batches done, last 3000 records in 800 ms (delay 0 ms)", stream.line());
    List<String> order = events.stream().map(EventLine::event)
        .filter(e -> e.startsWith("batch")).toList();
    assertEquals(List.of("batchSubmitted", "batchStarted", "batchCompleted",
        "batchSubmitted", "batchStarted", "batchCompleted",
        "batchSubmitted", "batchStarted", "batchCompleted"), order);
    List<String> completedTimes = events("batchCompleted").stream().map(e -> e.get("batch"))
        .toList();
    assertEquals(List.of("10000", "20000", "30000"), completedTimes);
    EventLine last = events("batchCompleted").get(2);
    assertEquals("3000", last.get("records"));
    assertEquals("800", last.get("processingMs"));
    assertEquals("1.2", last.get("taskSeconds"));
    assertEquals("2", last.get("executors"));
    assertEquals("5", events("batchStarted").get(2).get("schedulingDelayMs"));
    assertTrue(host.statusChanges >= 9, "every hook updates the status");
  }

  @Test
  void aBatchDuringWhichExecutorsChangedSaysSo() throws Exception {
    executors(1);
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();
    assertFalse(hooks.runPlan(batchPlan(1)).executorsChanged());

    PlanSession changing = new PlanSession(new JobContext(conf, List.of()), (plan, done) -> {
      registry.launched("9", "node9", 7337, clock.millis());
      registry.added("9");
      runPlan(plan, done);
    });
    StreamDriver hooks2 = new StreamSession(conf, scheduler, registry, log, clock::millis, changing,
        host).hooks();
    StreamDriver.PlanMeasure measure = hooks2.runPlan(batchPlan(2));

    assertTrue(measure.executorsChanged());
    assertEquals(1, measure.executorsAtStart());
  }

  @Test
  void aFailedBatchPlanFailsTheStreamWithTheSchedulersReason() {
    executors(1);
    PlanSession failing = new PlanSession(new JobContext(conf, List.of()),
        (plan, done) -> done.complete("task map 0 failed 2 times"));
    StreamDriver hooks = new StreamSession(conf, scheduler, registry, log, clock::millis, failing, host)
        .hooks();

    JobSession.JobFailedException e = assertThrows(JobSession.JobFailedException.class,
        () -> hooks.runPlan(batchPlan(1)));

    assertEquals("task map 0 failed 2 times", e.getMessage());
  }

  @Test
  void beforeABatchTheStreamingPolicyRemovesTheLongestIdleExecutors() throws Exception {
    seedPolicy(4, 1, 8);
    executors(4); // idle since 100000, 100100, 100200, 100300
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();
    hooks.batchCompleted(completed(10_000, 5_000, false));

    hooks.batchSubmitted(20_000, 100, 0, 0);

    // Processing took half the interval: half of the 4 executors go, longest idle first.
    assertEquals(List.of(List.of("1", "2")), host.removed);
    assertEquals(List.of("removed by streaming dynamic allocation"), host.removalReasons);
    assertEquals(List.of(4, 2), host.requested);
    assertEquals(2, scheduler.activeExecutors(), "the removed ones take no more tasks");
    EventLine sizing = events("streamingAllocation").get(0);
    assertEquals("20000", sizing.get("batch"));
    assertEquals("4", sizing.get("from"));
    assertEquals("2", sizing.get("target"));
    assertEquals("2", sizing.get("remove"));
    assertEquals("2", events("batchSubmitted").get(0).get("target"),
        "the batch is recorded with the target it runs under");
  }

  @Test
  void afterADelayedBatchTheStreamingPolicyAsksForTheMaximumAtOnce() throws Exception {
    seedPolicy(2, 1, 8);
    executors(2);
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();
    hooks.batchCompleted(completed(10_000, 14_000, true));

    hooks.batchSubmitted(20_000, 100, 1, 50);

    assertEquals(List.of(2, 8), host.requested);
    assertEquals(List.of(), host.removed);
    EventLine sizing = events("streamingAllocation").get(0);
    assertEquals("8", sizing.get("target"));
    assertTrue(sizing.get("reason").contains("was delayed"), sizing.get("reason"));
  }

  @Test
  void withTheTargetKeptNothingIsAskedForOrLogged() throws Exception {
    seedPolicy(2, 1, 8);
    executors(2);
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();
    // 9.5 s of a 10 s interval: nothing to spare.
    hooks.batchCompleted(completed(10_000, 9_500, false));

    hooks.batchSubmitted(20_000, 100, 0, 0);

    assertEquals(List.of(2), host.requested, "only the initial request");
    assertTrue(events("streamingAllocation").isEmpty());
  }

  @Test
  void withoutTheStreamingPolicyNoBatchChangesTheTarget() throws Exception {
    executors(3);
    StreamSession stream = session();
    stream.start();
    StreamDriver hooks = stream.hooks();
    hooks.batchCompleted(completed(10_000, 100, false));

    hooks.batchSubmitted(20_000, 100, 0, 0);

    assertEquals(List.of(), host.requested);
    assertEquals(List.of(), host.removed);
    assertEquals("-1", events("batchSubmitted").get(0).get("target"));
  }

  @Test
  void theStreamStopsWhenTheStopMarkerAppearsInTheStagingDirectory() throws Exception {
    StreamDriver hooks = session().hooks();
    assertFalse(hooks.stopRequested(), "no staging directory named: never stops");

    conf.set(Driver.STAGING_APP_DIR_KEY, staging.toUri().toString());
    assertFalse(hooks.stopRequested());
    Files.createFile(staging.resolve(Driver.STOP_MARKER));
    assertTrue(hooks.stopRequested());
  }

  @Test
  void theHooksGiveTheJobsContextAndTheDriversClock() {
    JobContext context = new JobContext(conf, List.of("a"));
    StreamDriver hooks = new StreamSession(conf, scheduler, registry, log, clock::millis,
        new PlanSession(context, (plan, done) -> done.complete(null)), host).hooks();

    assertSame(context, hooks.context());
    assertEquals(100_000, hooks.now());
    clock.advanceMillis(5);
    assertEquals(100_005, hooks.now());
  }
}
