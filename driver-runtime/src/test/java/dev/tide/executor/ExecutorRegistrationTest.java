package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.Driver;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobArgs;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcListener;
import dev.tide.rpc.RpcMessage;
import dev.tide.testing.Await;
import io.netty.channel.Channel;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor's registration with the driver, over the real Netty RPC on loopback: retries with
 * backoff, the registration timeout, the driver going away, and the driver refusing a wrong
 * secret. Timeouts are short and come in through the executor's settings (what
 * {@code tide.executor.registrationTimeout} becomes on the command line).
 */
class ExecutorRegistrationTest {
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
  void retriesWithBackoffUntilTheDriverListensThenRegisters() throws Exception {
    // A "driver" that is not ready yet: the port accepts connections and drops them at once.
    ServerSocket notReady = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK));
    int port = notReady.getLocalPort();
    List<Long> attemptNanos = Collections.synchronizedList(new ArrayList<>());
    Thread acceptor = new Thread(() -> {
      while (true) {
        try (Socket s = notReady.accept()) {
          attemptNanos.add(System.nanoTime());
        } catch (IOException closed) {
          return;
        }
      }
    }, "not-ready-driver");
    acceptor.setDaemon(true);
    acceptor.start();

    CompletableFuture<ExecutorBackend.Exit> exit = runExecutor("7", port, SECRET, 30_000);
    awaitTrue(() -> attemptNanos.size() >= 3, Duration.ofSeconds(20),
        "the executor retries while the driver is not ready");
    assertFalse(exit.isDone(), "an executor keeps retrying within its registration timeout");
    // Backoff: 200 ms before the 2nd attempt, 400 ms before the 3rd (lower bounds only).
    assertTrue(attemptNanos.get(1) - attemptNanos.get(0) >= TimeUnit.MILLISECONDS.toNanos(190),
        "first backoff >= 200 ms: " + gapsMillis(attemptNanos));
    assertTrue(attemptNanos.get(2) - attemptNanos.get(1) >= TimeUnit.MILLISECONDS.toNanos(390),
        "second backoff >= 400 ms: " + gapsMillis(attemptNanos));

    notReady.close();
    acceptor.join(5_000);
    Driver driver = startDriver(port, SECRET).driver();
    awaitTrue(() -> driver.isExecutorRegistered("7"), Duration.ofSeconds(20),
        "the executor registers once the driver listens");

    driver.close(); // tells its executors to exit
    ExecutorBackend.Exit end = exit.get(20, TimeUnit.SECONDS);
    assertEquals(0, end.code(), end.reason());
    assertTrue(end.reason().contains("asked executor 7 to exit"), end.reason());
  }

  @Test
  void exitsWithAClearMessageWhenNoDriverAnswersWithinTheTimeout() throws Exception {
    int port = freePort(); // nothing listens there
    long start = System.nanoTime();
    ExecutorBackend.Exit end = runExecutor("3", port, SECRET, 1_000).get(20, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertEquals(1, end.code(), end.reason());
    assertTrue(end.reason().contains("Executor 3 could not register with the driver at "
        + LOOPBACK + ":" + port), end.reason());
    assertTrue(end.reason().contains(
        "no driver answered within tide.executor.registrationTimeout = 1000 ms"), end.reason());
    assertTrue(tookMillis >= 950, "kept trying until the timeout, took " + tookMillis + " ms");
    assertTrue(tookMillis < 10_000, "gave up soon after the timeout, took " + tookMillis + " ms");
  }

  @Test
  void aDriverThatAcceptsButNeverAnswersDoesNotHoldTheExecutorPastItsTimeout() throws Exception {
    ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK));
    toClose.add(silent);
    List<Socket> held = Collections.synchronizedList(new ArrayList<>());
    Thread acceptor = new Thread(() -> {
      while (true) {
        try {
          held.add(silent.accept()); // never answers the handshake
        } catch (IOException closed) {
          return;
        }
      }
    }, "silent-driver");
    acceptor.setDaemon(true);
    acceptor.start();
    toClose.add(() -> {
      for (Socket s : held) {
        s.close();
      }
    });

    long start = System.nanoTime();
    ExecutorBackend.Exit end =
        runExecutor("4", silent.getLocalPort(), SECRET, 1_000).get(20, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertEquals(1, end.code(), end.reason());
    assertTrue(end.reason().contains("no driver answered within"), end.reason());
    // The handshake alone would wait 10 s; the registration timeout bounds every attempt.
    assertTrue(tookMillis < 5_000, "took " + tookMillis + " ms");
  }

  @Test
  void exitsWhenTheDriverGoesAway() throws Exception {
    RpcChannels fakeDriver = new RpcChannels("fake-driver");
    toClose.add(fakeDriver);
    CompletableFuture<Channel> executorConnection = new CompletableFuture<>();
    InetSocketAddress bound = fakeDriver.listen(0, APP, SECRET, new RpcListener() {
      @Override
      public void onMessage(Channel channel, RpcMessage message) {
        if (message instanceof RpcMessage.RegisterExecutor) {
          RpcChannels.send(channel, new RpcMessage.Registered(emptyConf()));
          executorConnection.complete(channel);
        }
      }

      @Override
      public void onClose(Channel channel) {}
    });

    CompletableFuture<ExecutorBackend.Exit> exit =
        runExecutor("5", bound.getPort(), SECRET, 10_000);
    Channel connection = executorConnection.get(20, TimeUnit.SECONDS);
    assertFalse(exit.isDone(), "a registered executor waits for work");

    connection.close(); // the driver's process died: its end of the connection closes
    ExecutorBackend.Exit end = exit.get(20, TimeUnit.SECONDS);
    assertEquals(1, end.code(), end.reason());
    assertTrue(end.reason().contains("The driver at " + LOOPBACK + ":" + bound.getPort()
        + " is gone"), end.reason());
  }

  @Test
  void theDriverRefusesAnExecutorWithAWrongSecret() throws Exception {
    RunningDriver running = startDriver(0, SECRET);
    Driver driver = running.driver();
    int port = running.port();
    byte[] wrong = "not-the-secret".getBytes(StandardCharsets.UTF_8);

    // At the RPC level: the handshake fails and names the driver.
    try (RpcChannels rpc = new RpcChannels("wrong-secret-client")) {
      IOException refused = assertThrows(IOException.class, () -> rpc.connect(LOOPBACK, port,
          APP, wrong, new IgnoringListener(), 5_000));
      assertTrue(refused.getMessage().contains("authentication with the driver at " + LOOPBACK
          + ":" + port + " failed"), refused.getMessage());
    }

    // An executor with the wrong secret exits at once instead of retrying until its timeout.
    long start = System.nanoTime();
    ExecutorBackend.Exit end = runExecutor("8", port, wrong, 30_000).get(20, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(1, end.code(), end.reason());
    assertTrue(end.reason().contains("refused this executor's credentials"), end.reason());
    assertTrue(tookMillis < 10_000, "no retries until the 30 s timeout; took " + tookMillis);

    // One with the right secret registers with the same driver; the refused one never did.
    CompletableFuture<ExecutorBackend.Exit> good = runExecutor("9", port, SECRET, 10_000);
    awaitTrue(() -> driver.isExecutorRegistered("9"), Duration.ofSeconds(20),
        "an executor with the right secret registers");
    assertFalse(driver.isExecutorRegistered("8"));
    assertFalse(good.isDone());
  }

  @Test
  void anExecutorRemovedAsIdleIsToldWhyAndExitsCleanly() throws Exception {
    // One 20 s map task for two executors: the one without a task is idle, removed after 200 ms.
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "1", "-mt", "20000")));
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "200ms");
    List<String> killed = Collections.synchronizedList(new ArrayList<>());
    Driver driver = new Driver(conf, APP, SECRET, new NoCluster() {
      @Override
      public void killExecutors(Collection<String> executorIds) {
        killed.addAll(executorIds);
      }
    });
    toClose.add(driver);
    int port = driver.start().getPort();
    Thread job = new Thread(() -> {
      try {
        driver.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "driver-run");
    job.setDaemon(true);
    job.start();
    Map<String, CompletableFuture<ExecutorBackend.Exit>> exits = Map.of(
        "1", runExecutor("1", port, SECRET, 10_000), "2", runExecutor("2", port, SECRET, 10_000));
    for (String id : exits.keySet()) {
      driver.executorLaunched(id, "localhost", 1); // the AM's part: the container started
    }

    awaitTrue(() -> exits.values().stream().anyMatch(CompletableFuture::isDone),
        Duration.ofSeconds(20), "the idle executor exits");
    String idle = exits.get("1").isDone() ? "1" : "2";
    ExecutorBackend.Exit end = exits.get(idle).get();
    assertEquals(0, end.code(), end.reason());
    assertEquals("The driver asked executor " + idle + " to exit: idle; removed by dynamic"
        + " allocation", end.reason());
    assertEquals(List.of(idle), killed, "the AM is still asked to release its container");
    String busy = idle.equals("1") ? "2" : "1";
    assertFalse(exits.get(busy).isDone(), "the executor running the map task stays");
  }

  // --- helpers -------------------------------------------------------------------------------

  private record RunningDriver(Driver driver, int port) {}

  /** A driver (running no job) listening on {@code port} (0: any), closed after the test. */
  private RunningDriver startDriver(int port, byte[] secret) throws IOException {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), port);
    Driver driver = new Driver(conf, APP, secret, new NoCluster());
    toClose.add(driver);
    return new RunningDriver(driver, driver.start().getPort());
  }

  private CompletableFuture<ExecutorBackend.Exit> runExecutor(String id, int port, byte[] secret,
      long registrationTimeoutMillis) {
    ExecutorBackend backend = new ExecutorBackend(new ExecutorBackend.Settings(LOOPBACK, port, id,
        APP, 1, secret, List.of(localDir), "localhost", registrationTimeoutMillis));
    toClose.add(backend);
    CompletableFuture<ExecutorBackend.Exit> exit = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        exit.complete(backend.run());
      } catch (Throwable e) {
        exit.completeExceptionally(e);
      }
    }, "executor-" + id);
    t.setDaemon(true);
    t.start();
    return exit;
  }

  private static void awaitTrue(BooleanSupplier condition, Duration within, String what) {
    Await.until(within, what, condition::getAsBoolean);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      return s.getLocalPort();
    }
  }

  private static List<Long> gapsMillis(List<Long> nanos) {
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < nanos.size(); i++) {
      gaps.add(TimeUnit.NANOSECONDS.toMillis(nanos.get(i) - nanos.get(i - 1)));
    }
    return gaps;
  }

  private static byte[] emptyConf() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      new Configuration(false).write(out);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return bytes.toByteArray();
  }

  /** The cluster side of a driver that runs no job: asks for nothing, kills nothing. */
  private static class NoCluster implements ExecutorAllocationClient {
    @Override
    public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
        Map<String, Integer> hostToLocalTaskCount) {}

    @Override
    public void killExecutors(Collection<String> executorIds) {}
  }

  private static final class IgnoringListener implements RpcListener {
    @Override
    public void onMessage(Channel channel, RpcMessage message) {}

    @Override
    public void onClose(Channel channel) {}
  }
}
