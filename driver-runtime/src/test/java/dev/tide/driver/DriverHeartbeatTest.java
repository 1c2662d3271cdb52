package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.JobArgs;
import dev.tide.executor.ExecutorBackend;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcListener;
import dev.tide.rpc.RpcMessage;
import dev.tide.rpc.TaskDescription;
import dev.tide.testing.Await;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's side of executor heartbeats, on a clock the test moves: an executor whose
 * connection stays open but which says nothing (a stopped JVM) is declared lost after
 * tide.executor.heartbeatTimeout, its container is released, its task runs again elsewhere; a
 * real executor, which heartbeats, stays.
 */
class DriverHeartbeatTest {
  private static final String APP = "application_1_0001";
  private static final byte[] SECRET = "the-application-secret".getBytes(StandardCharsets.UTF_8);
  private static final String LOOPBACK = "127.0.0.1";

  @TempDir Path localDir;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  @Test
  void aSilentExecutorIsLostItsContainerReleasedAndItsTaskRerunWhileAHeartbeatingOneStays()
      throws Exception {
    // Two 10-minute map tasks: one on a silent executor, one on a real one.
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "2", "-mt", "600000")));
    conf.set(AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.key(), "50ms");
    conf.set(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(), "5s");
    AtomicLong clock = new AtomicLong(1_000_000);
    CompletableFuture<String> lostKilled = new CompletableFuture<>();
    List<String> killedAsIdle = Collections.synchronizedList(new ArrayList<>());
    Driver driver = new Driver(conf, APP, SECRET, new ExecutorAllocationClient() {
      @Override
      public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
          Map<String, Integer> hostToLocalTaskCount) {}

      @Override
      public void killExecutors(Collection<String> executorIds) {
        killedAsIdle.addAll(executorIds);
      }

      @Override
      public void killLostExecutor(String executorId, String reason) {
        lostKilled.complete(executorId + ": " + reason);
      }
    }, clock::get);
    List<EventLine> events = new CopyOnWriteArrayList<>();
    int port = startRunning(driver, events::add);

    SilentExecutor silent = new SilentExecutor("1", port);
    driver.executorLaunched("1", "localhost", 1);
    TaskDescription stuck = silent.launched.poll(20, TimeUnit.SECONDS);
    assertNotNull(stuck, "the silent executor gets a map task");
    startExecutor("2", port);
    driver.executorLaunched("2", "localhost", 1);
    awaitRunning(driver, 2);

    // Time passes on the driver's clock in steps far shorter than the timeout and no faster
    // than real time, while the real executor's heartbeats (every 50 ms of real time) keep
    // arriving: only a stall of its JVM for the whole timeout would make it miss them.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!lostKilled.isDone() && System.nanoTime() < deadline) {
      clock.addAndGet(100);
      try {
        lostKilled.get(100, TimeUnit.MILLISECONDS); // returns as soon as it is declared lost
      } catch (java.util.concurrent.TimeoutException notYet) {
        // move the clock on
      }
    }
    assertTrue(lostKilled.isDone(), "the silent executor is never declared lost");
    String killed = lostKilled.get();
    assertTrue(killed.matches("1: executor 1 on localhost lost: no heartbeat for \\d+ s"
        + " \\(tide.executor.heartbeatTimeout = 5s\\)"), killed);
    assertTrue(driver.isExecutorGone("1"));
    assertFalse(driver.isExecutorGone("2"), "the executor that heartbeats stays");
    assertEquals(List.of(), killedAsIdle);
    EventLine removed = events.stream().filter(e -> e.is(EventName.EXECUTOR_REMOVED))
        .findFirst().orElseThrow();
    assertEquals("1", removed.get("executor"));
    assertTrue(removed.get("reason").startsWith("lost: no heartbeat for "), removed.get("reason"));
    assertTrue(silent.channel.closeFuture().await(20, TimeUnit.SECONDS),
        "the driver closes the lost executor's connection: anything it sends later is dropped");

    // The lost executor's task runs again, on the next executor that comes.
    SilentExecutor replacement = new SilentExecutor("3", port);
    driver.executorLaunched("3", "localhost", 1);
    TaskDescription rerun = replacement.launched.poll(20, TimeUnit.SECONDS);
    assertNotNull(rerun, "the lost executor's task is not run again");
    assertEquals(stuck.stageId(), rerun.stageId());
    assertEquals(stuck.index(), rerun.index());
    assertTrue(rerun.attempt() > stuck.attempt(), rerun.describe());
  }

  /**
   * With tide.speculation on, a map task held by an executor that heartbeats but never
   * finishes (a straggler) gets a speculative attempt on the other executor, which completes
   * the map stage.
   */
  @Test
  void aStragglingMapGetsASpeculativeAttemptThatCompletesTheStage() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "4", "-mt", "200")));
    conf.setBoolean(TideOptions.SPECULATION.key(), true);
    conf.set(TideOptions.SPECULATION_MIN_TASK_RUNTIME.key(), "100ms");
    Driver driver = new Driver(conf, APP, SECRET, new ExecutorAllocationClient() {
      @Override
      public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
          Map<String, Integer> hostToLocalTaskCount) {}

      @Override
      public void killExecutors(Collection<String> executorIds) {}
    });
    List<EventLine> events = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> stageCompleted = new CompletableFuture<>();
    int port = startRunning(driver, e -> {
      events.add(e);
      if (e.is(EventName.STAGE_COMPLETED)) {
        stageCompleted.complete(null);
      }
    });
    SilentExecutor straggler = new SilentExecutor("1", port);
    driver.executorLaunched("1", "localhost", 1);
    TaskDescription held = straggler.launched.poll(20, TimeUnit.SECONDS);
    assertNotNull(held, "the straggler gets a map task");
    startExecutor("2", port);
    driver.executorLaunched("2", "localhost", 1);

    try {
      stageCompleted.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the map stage did not complete within 30 s: " + events);
    }
    EventLine speculated = events.stream().filter(e -> e.is(EventName.TASK_SPECULATED))
        .findFirst().orElseThrow();
    assertEquals(Long.toString(held.taskId()), speculated.get("of"));
    assertEquals(Integer.toString(held.index()), speculated.get("index"));
    assertEquals("2", speculated.get("executor"));
    assertEquals(1, events.stream().filter(e -> e.is(EventName.TASK_SPECULATED)).count());
  }

  /** Starts the driver's RPC and its job on a thread of its own; returns the RPC port. */
  private int startRunning(Driver driver, java.util.function.Consumer<EventLine> events)
      throws Exception {
    driver.onEvent(events);
    toClose.add(driver);
    int port = driver.start().getPort();
    daemon("driver-run", driver::run);
    return port;
  }

  /** A real executor (1 core) on a thread of its own. */
  private void startExecutor(String id, int port) {
    ExecutorBackend backend = new ExecutorBackend(new ExecutorBackend.Settings(LOOPBACK, port,
        id, APP, 1, SECRET, List.of(localDir), "localhost", 10_000));
    toClose.add(backend);
    daemon("executor-" + id, backend::run);
  }

  private interface Body {
    Object run() throws InterruptedException;
  }

  private static void daemon(String name, Body body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  private static void awaitRunning(Driver driver, int tasks) {
    Await.until(Duration.ofSeconds(20), () -> tasks + " running tasks; status "
        + driver.status(), () -> driver.status().runningTasks() >= tasks);
  }

  /** An executor that registers and takes tasks but never says anything more: a stopped JVM. */
  private final class SilentExecutor {
    final BlockingQueue<TaskDescription> launched = new LinkedBlockingQueue<>();
    final Channel channel;

    SilentExecutor(String id, int port) throws Exception {
      RpcChannels rpc = new RpcChannels("silent-executor-" + id);
      toClose.add(rpc);
      channel = rpc.connect(LOOPBACK, port, APP, SECRET, new RpcListener() {
        @Override
        public void onMessage(Channel ch, RpcMessage message) {
          if (message instanceof RpcMessage.LaunchTask m) {
            launched.add(m.task());
          }
        }

        @Override
        public void onClose(Channel ch) {}
      }, 5_000);
      RpcChannels.send(channel, new RpcMessage.RegisterExecutor(id, "localhost", 1, 0));
    }
  }
}
