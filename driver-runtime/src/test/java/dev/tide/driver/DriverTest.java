package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.job.JobArgs;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcListener;
import dev.tide.rpc.RpcMessage;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.testing.Await;
import dev.tide.time.ManualClock;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver as the coordinator of its parts, over its real RPC on the loopback interface with
 * scripted executors (no YARN, no executor JVM): executors register and get the job's settings,
 * tasks go to them and their reports end the job, registrations it must refuse are refused, an
 * executor the cluster reports gone has its task run elsewhere, and an idle one is told why it is
 * removed before its container is released. The policies' time is a manual clock.
 */
class DriverTest {
  private static final String APP = "application_1_0002";
  private static final byte[] SECRET = "driver-test-secret".getBytes(StandardCharsets.UTF_8);
  private static final long WAIT_SECONDS = 30;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ManualClock clock = new ManualClock(5_000_000);
  private final List<EventLine> events = new CopyOnWriteArrayList<>();
  private final List<String> killed = new CopyOnWriteArrayList<>();
  private final List<Integer> targets = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private Configuration sleepJob(String... args) {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of(args)));
    return conf;
  }

  private Driver driver(Configuration conf) {
    Driver driver = new Driver(conf, APP, SECRET, new ExecutorAllocationClient() {
      @Override
      public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
          Map<String, Integer> hostToLocalTaskCount) {
        targets.add(targetExecutors);
      }

      @Override
      public void killExecutors(Collection<String> executorIds) {
        killed.addAll(executorIds);
      }
    }, clock::millis);
    driver.onEvent(events::add);
    toClose.add(driver);
    return driver;
  }

  /** Starts the driver's RPC and runs its job on a thread; the result completes at its end. */
  private CompletableFuture<JobResult> run(Driver driver, int[] port) throws Exception {
    port[0] = driver.start().getPort();
    CompletableFuture<JobResult> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(driver.run());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, "driver-run");
    t.setDaemon(true);
    t.start();
    return result;
  }

  /** An executor the test scripts: it registers, then records what the driver sends it. */
  private final class ScriptedExecutor {
    final String id;
    final BlockingQueue<RpcMessage> received = new LinkedBlockingQueue<>();
    final Channel channel;

    ScriptedExecutor(String id, int port) throws Exception {
      this.id = id;
      RpcChannels rpc = new RpcChannels("scripted-executor-" + id);
      toClose.add(rpc);
      channel = rpc.connect("127.0.0.1", port, APP, SECRET, new RpcListener() {
        @Override
        public void onMessage(Channel ch, RpcMessage message) {
          received.add(message);
        }

        @Override
        public void onClose(Channel ch) {}
      }, 5_000);
      RpcChannels.send(channel, new RpcMessage.RegisterExecutor(id, "localhost", 1, 0));
    }

    /** The next message of the given type; the others before it are dropped. */
    <T extends RpcMessage> T next(Class<T> type) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (System.nanoTime() < deadline) {
        RpcMessage m = received.poll(100, TimeUnit.MILLISECONDS);
        if (type.isInstance(m)) {
          return type.cast(m);
        }
      }
      throw new AssertionError("executor " + id + " got no " + type.getSimpleName()
          + " within " + WAIT_SECONDS + " s; events " + events);
    }

    void report(TaskOutcome outcome) {
      RpcChannels.send(channel, new RpcMessage.TaskStatus(outcome));
    }
  }

  /** Waits, polling, until {@code condition} holds; fails naming {@code what} after the deadline. */
  private void await(java.util.function.BooleanSupplier condition, String what) {
    Await.until(Duration.ofSeconds(WAIT_SECONDS), () -> what + "; events " + events,
        condition::getAsBoolean);
  }

  private EventLine awaitEvent(String name) {
    await(() -> !events(name).isEmpty(), "a " + name + " event");
    return events(name).get(0);
  }

  private List<EventLine> events(String name) {
    synchronized (events) {
      return events.stream().filter(e -> e.event().equals(name)).toList();
    }
  }

  @Test
  void tasksGoToRegisteredExecutorsAndTheirReportsEndTheJob() throws Exception {
    Driver driver = driver(sleepJob("-m", "2", "-r", "1"));
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    ScriptedExecutor executor = new ScriptedExecutor("1", port[0]);
    RpcMessage.Registered registered = executor.next(RpcMessage.Registered.class);
    assertTrue(registered.jobConf().length > 0, "the executor gets the job's settings");
    driver.executorLaunched("1", "localhost", 7337);

    for (int task = 0; task < 3; task++) {
      TaskDescription launched = executor.next(RpcMessage.LaunchTask.class).task();
      assertEquals(task < 2 ? TaskDescription.Kind.MAP : TaskDescription.Kind.REDUCE,
          launched.kind(), "the maps first, one at a time on one core, then the reduce");
      executor.report(TaskOutcome.succeeded(launched.taskId(), Map.of()));
    }

    JobResult end = result.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertTrue(end.succeeded(), end.diagnostics());
    assertEquals("job sleep finished: 3 tasks in 1 plan", end.diagnostics());
    assertEquals(3, driver.tasksSucceeded());
    assertTrue(driver.isExecutorRegistered("1"));
    assertFalse(driver.isExecutorGone("1"));
    EventLine added = events("executorAdded").get(0);
    assertEquals("1", added.get("executor"));
    assertEquals("7337", added.get("shufflePort"));
    assertEquals("true", events("planEnd").get(0).get("succeeded"));
    assertEquals("succeeded", events("jobEnd").get(0).get("state"));
    assertEquals(0, targets.get(targets.size() - 1), "at the end no executor is wanted");
  }

  @Test
  void aSecondRegistrationOfTheSameIdIsRefused() throws Exception {
    Driver driver = driver(sleepJob("-m", "1", "-mt", "600000"));
    int[] port = new int[1];
    run(driver, port);
    ScriptedExecutor first = new ScriptedExecutor("1", port[0]);
    first.next(RpcMessage.Registered.class);

    ScriptedExecutor twin = new ScriptedExecutor("1", port[0]);

    assertEquals("executor 1 is already registered or was removed",
        twin.next(RpcMessage.RegisterRejected.class).reason());
  }

  @Test
  void onceTheJobIsOverRegistrationsAreRefused() throws Exception {
    Driver driver = driver(sleepJob("-m", "1", "-mt", "600000"));
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    awaitEvent("planStart");
    driver.abort("too many executor failures");
    JobResult end = result.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertFalse(end.succeeded());
    assertEquals("too many executor failures", end.diagnostics());

    ScriptedExecutor late = new ScriptedExecutor("9", port[0]);

    assertEquals("executor 9: the job is over",
        late.next(RpcMessage.RegisterRejected.class).reason());
    assertFalse(driver.isExecutorRegistered("9"));
  }

  @Test
  void anExecutorTheClusterReportsGoneHasItsTaskRunElsewhere() throws Exception {
    Driver driver = driver(sleepJob("-m", "1", "-r", "1"));
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    ScriptedExecutor doomed = new ScriptedExecutor("1", port[0]);
    driver.executorLaunched("1", "localhost", 7337);
    TaskDescription map = doomed.next(RpcMessage.LaunchTask.class).task();

    driver.executorExited("1", true, "exit code 137 (killed by the OOM killer)");

    EventLine removed = awaitEvent("executorRemoved");
    assertEquals("1", removed.get("executor"));
    assertEquals("failed: exit code 137 (killed by the OOM killer)", removed.get("reason"));
    ScriptedExecutor next = new ScriptedExecutor("2", port[0]);
    driver.executorLaunched("2", "localhost", 7337);
    TaskDescription rerun = next.next(RpcMessage.LaunchTask.class).task();
    assertEquals(map.index(), rerun.index());
    assertEquals(TaskDescription.Kind.MAP, rerun.kind());
    assertTrue(rerun.attempt() > map.attempt());
    assertTrue(driver.isExecutorGone("1"));
    next.report(TaskOutcome.succeeded(rerun.taskId(), Map.of()));
    TaskDescription reduce = next.next(RpcMessage.LaunchTask.class).task();
    next.report(TaskOutcome.succeeded(reduce.taskId(), Map.of()));
    assertTrue(result.get(WAIT_SECONDS, TimeUnit.SECONDS).succeeded());
  }

  /**
   * Issue 36: a node being decommissioned gets no new task; the task running there finishes,
   * then its idle executor is removed, saying why; the node state listeners hear that it leaves
   * and, later, that it is gone.
   */
  @Test
  void aDecommissioningNodeGetsNoNewTaskAndItsListenersHearWhenItLeaves() throws Exception {
    Configuration conf = sleepJob("-m", "2", "-r", "1");
    conf.setInt(AppOptions.EXECUTOR_CORES.key(), 1);
    Driver driver = driver(conf);
    List<String> heard = new CopyOnWriteArrayList<>();
    driver.addNodeStateListener(new NodeStateListener() {
      @Override
      public void decommissioning(String host, long leavesAtMillis) {
        heard.add("decommissioning " + host + " " + leavesAtMillis);
      }

      @Override
      public void lost(String host) {
        heard.add("lost " + host);
      }
    });
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    ScriptedExecutor leaving = new ScriptedExecutor("1", port[0]);
    driver.executorNode("1", "nodeA:45454");
    driver.executorLaunched("1", "nodeA", 7337);
    TaskDescription first = leaving.next(RpcMessage.LaunchTask.class).task();

    driver.onNodeDecommissioning("nodeA:45454", clock.millis() + 30_000);
    await(() -> heard.size() == 1, "the listener hears of the decommissioning");
    assertEquals("decommissioning nodeA:45454 " + (clock.millis() + 30_000), heard.get(0));
    leaving.report(TaskOutcome.succeeded(first.taskId(), Map.of()));
    assertEquals("node nodeA:45454 decommissioning",
        leaving.next(RpcMessage.Shutdown.class).reason());
    await(() -> killed.contains("1"), "the release of the leaving node's executor");
    assertEquals(1, events("taskStart").size(), "no new task on the leaving node");

    ScriptedExecutor staying = new ScriptedExecutor("2", port[0]);
    driver.executorLaunched("2", "nodeB", 7337);
    for (int i = 0; i < 2; i++) {
      TaskDescription task = staying.next(RpcMessage.LaunchTask.class).task();
      staying.report(TaskOutcome.succeeded(task.taskId(), Map.of()));
    }
    assertTrue(result.get(WAIT_SECONDS, TimeUnit.SECONDS).succeeded());
    driver.onNodeLost("nodeA:45454");
    await(() -> heard.size() == 2, "the listener hears that the node is gone");
    assertEquals("lost nodeA:45454", heard.get(1));
  }

  /**
   * Issue 36: an executor launched on a node that begins to leave before the executor
   * registers (a slow JVM start) gets no task either; it is removed once added. (CI found an
   * executor that registered late get tasks on a decommissioning node.)
   */
  @Test
  void anExecutorRegisteringAfterItsNodeBeganToLeaveGetsNoTask() throws Exception {
    Configuration conf = sleepJob("-m", "2", "-r", "1");
    conf.setInt(AppOptions.EXECUTOR_CORES.key(), 1);
    Driver driver = driver(conf);
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    driver.executorNode("1", "nodeA:45454");
    driver.executorLaunched("1", "nodeA", 7337);
    // Posted to the driver's loop before the registration below, so acted on first.
    driver.onNodeDecommissioning("nodeA:45454", clock.millis() + 30_000);

    ScriptedExecutor late = new ScriptedExecutor("1", port[0]);
    assertEquals("node nodeA:45454 decommissioning",
        late.next(RpcMessage.Shutdown.class).reason());
    ScriptedExecutor staying = new ScriptedExecutor("2", port[0]);
    driver.executorLaunched("2", "nodeB", 7337);
    for (int i = 0; i < 3; i++) {
      TaskDescription task = staying.next(RpcMessage.LaunchTask.class).task();
      staying.report(TaskOutcome.succeeded(task.taskId(), Map.of()));
    }
    assertTrue(result.get(WAIT_SECONDS, TimeUnit.SECONDS).succeeded());
    assertTrue(events("taskStart").stream().noneMatch(e -> e.get("executor").equals("1")),
        "no task started on the late executor: " + events("taskStart"));
  }

  /**
   * Issue 36: a task that fails on an executor YARN is taking back (its JVM is being stopped)
   * is lost with it, not failed: with tide.task.maxAttempts = 1 the job still succeeds.
   */
  @Test
  void aTaskFailingOnAPreemptedExecutorRunsAgainWithoutCounting() throws Exception {
    Configuration conf = sleepJob("-m", "1", "-r", "1");
    conf.setInt(TideOptions.TASK_MAX_ATTEMPTS.key(), 1);
    Driver driver = driver(conf);
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    ScriptedExecutor preempted = new ScriptedExecutor("1", port[0]);
    driver.executorLaunched("1", "localhost", 7337);
    TaskDescription map = preempted.next(RpcMessage.LaunchTask.class).task();

    driver.executorPreempted("1", "container c1 given back to YARN (busy)");
    preempted.report(TaskOutcome.failed(map.taskId(), "interrupted: the JVM is stopping"));
    EventLine removed = awaitEvent("executorRemoved");
    assertTrue(removed.get("reason").startsWith("preempted: container c1 given back"),
        removed.get("reason"));

    ScriptedExecutor next = new ScriptedExecutor("2", port[0]);
    driver.executorLaunched("2", "localhost", 7337);
    for (int i = 0; i < 2; i++) {
      TaskDescription task = next.next(RpcMessage.LaunchTask.class).task();
      next.report(TaskOutcome.succeeded(task.taskId(), Map.of()));
    }
    assertTrue(result.get(WAIT_SECONDS, TimeUnit.SECONDS).succeeded());
  }

  @Test
  void aTaskFailingEveryAttemptFailsTheJobWithItsMessage() throws Exception {
    Configuration conf = sleepJob("-m", "1");
    conf.setInt(TideOptions.TASK_MAX_ATTEMPTS.key(), 2);
    Driver driver = driver(conf);
    int[] port = new int[1];
    CompletableFuture<JobResult> result = run(driver, port);
    ScriptedExecutor executor = new ScriptedExecutor("1", port[0]);
    driver.executorLaunched("1", "localhost", 7337);

    for (int attempt = 0; attempt < 2; attempt++) {
      TaskDescription task = executor.next(RpcMessage.LaunchTask.class).task();
      executor.report(TaskOutcome.failed(task.taskId(), "corrupt split " + attempt));
    }

    JobResult end = result.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertFalse(end.succeeded());
    assertTrue(end.diagnostics().contains("failed 2 times"), end.diagnostics());
    assertTrue(end.diagnostics().endsWith("corrupt split 1"), end.diagnostics());
    assertEquals("false", events("planEnd").get(0).get("succeeded"));
    assertEquals(0, driver.tasksSucceeded());
  }

  @Test
  void anIdleExecutorIsToldWhyBeforeItsContainerIsReleased() throws Exception {
    Configuration conf = sleepJob("-m", "1", "-mt", "600000");
    conf.set(TideOptions.DA_EXECUTOR_IDLE_TIMEOUT.key(), "1s");
    // The scripted busy executor sends no heartbeats: however long the removal takes in real
    // time (the clock below runs faster), it is not declared lost meanwhile.
    conf.set(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(), "1h");
    Driver driver = driver(conf);
    int[] port = new int[1];
    run(driver, port);
    ScriptedExecutor busy = new ScriptedExecutor("1", port[0]);
    driver.executorLaunched("1", "localhost", 7337);
    assertNotNull(busy.next(RpcMessage.LaunchTask.class));
    ScriptedExecutor idle = new ScriptedExecutor("2", port[0]);
    driver.executorLaunched("2", "localhost", 7337);
    awaitEvent("executorAdded");

    CompletableFuture<RpcMessage.Shutdown> told = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        told.complete(idle.next(RpcMessage.Shutdown.class));
      } catch (Throwable e) {
        told.completeExceptionally(e);
      }
    });
    waiter.setDaemon(true);
    waiter.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!told.isDone() && System.nanoTime() < deadline) {
      clock.advanceMillis(500); // the policy's time moves; its tick runs every 100 ms of real time
      try {
        told.get(50, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException notYet) {
        // move the clock on
      }
    }

    assertEquals("idle; removed by dynamic allocation", told.get().reason());
    await(() -> !killed.isEmpty(), "the release of the idle executor's container");
    assertEquals(List.of("2"), List.copyOf(killed));
    EventLine removal = awaitEvent("executorIdleRemoval");
    assertEquals("2", removal.get("executor"));
    assertFalse(driver.isExecutorGone("1"), "the busy executor stays");

    idle.channel.close(); // the executor exits as told
    EventLine gone = awaitEvent("executorRemoved");
    assertEquals("2", gone.get("executor"));
    assertEquals("idle; removed by dynamic allocation; it exited", gone.get("reason"),
        "the reason it was told, not a generic one");
  }

  @Test
  void theStatusShowsThePlanItsTasksAndTheExecutors() throws Exception {
    Driver driver = driver(sleepJob("-m", "3", "-mt", "600000"));
    int[] port = new int[1];
    run(driver, port);
    ScriptedExecutor executor = new ScriptedExecutor("1", port[0]);
    driver.executorLaunched("1", "localhost", 7337);
    executor.next(RpcMessage.LaunchTask.class);

    await(() -> driver.status().runningTasks() == 1, "a running task in the status");
    JobStatus status = driver.status();
    assertEquals("sleep", status.jobName());
    assertEquals(1, status.runningTasks());
    assertEquals(2, status.pendingTasks());
    assertEquals(1, status.executorsRunning());
    assertEquals(4, status.tasksTotal());
  }
}
