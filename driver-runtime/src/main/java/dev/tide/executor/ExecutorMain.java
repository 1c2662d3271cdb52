package dev.tide.executor;

import dev.tide.app.ContainerTokenFile;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.LoggerFactory;

/**
 * Entry point of an executor container: {@code ExecutorMain --driver host:port --executor-id N
 * --app-id ID --cores C --registration-timeout-ms T}. The secret comes from the container's credentials, the local dirs from
 * {@code LOCAL_DIRS}, the host from {@code NM_HOST}. Exits 0 when the driver says so, 1 when the
 * driver is gone or refuses it, {@value ExecutorBackend#EXIT_OUT_OF_MEMORY} after a task ran out
 * of heap, {@value ExecutorBackend#EXIT_USER_CODE} when user code called {@code System.exit}
 * (see {@link #onShutdown}).
 */
public final class ExecutorMain {
  private ExecutorMain() {}

  public static void main(String[] args) throws Exception {
    long mainEntered = System.currentTimeMillis();
    warmUpInBackground();
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      flags.put(args[i], args[i + 1]);
    }
    String driver = require(flags, "--driver");
    int colon = driver.lastIndexOf(':');
    String host = System.getenv("NM_HOST");
    if (host == null || host.isEmpty()) {
      host = InetAddress.getLocalHost().getCanonicalHostName();
    }
    List<Path> localDirs = new ArrayList<>();
    String env = System.getenv("LOCAL_DIRS");
    if (env == null || env.isEmpty()) {
      System.err.println("LOCAL_DIRS is not set: an executor must run in a YARN container");
      System.exit(2);
    }
    for (String dir : env.split(",")) {
      localDirs.add(Path.of(dir));
    }
    long registrationTimeout = Long.parseLong(require(flags, "--registration-timeout-ms"));
    ExecutorBackend.Settings settings = new ExecutorBackend.Settings(
        driver.substring(0, colon), Integer.parseInt(driver.substring(colon + 1)),
        require(flags, "--executor-id"), require(flags, "--app-id"),
        Integer.parseInt(require(flags, "--cores")), ContainerTokenFile.applicationSecret(),
        localDirs, host, registrationTimeout,
        Boolean.parseBoolean(flags.get(ExecutorCommand.NETWORK_CRYPTO_FLAG)));
    ExecutorBackend backend = new ExecutorBackend(settings);
    // Set by whoever ends the JVM first: a shutdown (the hook) or main's own exit.
    AtomicBoolean ending = new AtomicBoolean();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (ending.compareAndSet(false, true)) {
        onShutdown(backend, settings.executorId());
      }
    }, "tide-executor-shutdown"));
    LoggerFactory.getLogger(ExecutorMain.class).info(
        "Executor {} starting: main entered {} ms after the JVM started, settings read at {} ms",
        settings.executorId(), mainEntered - jvmStartMillis(), millisSinceJvmStart());
    int code;
    try (backend) {
      code = backend.run().code(); // run() logged the reason
    }
    if (ending.compareAndSet(false, true)) {
      // Not while a shutdown runs: exiting from here would replace its status.
      System.exit(code);
    }
  }

  /** How long the shutdown hook may spend telling the driver that user code exited. */
  static final long USER_EXIT_REPORT_MILLIS = 3_000;

  /**
   * The JVM is ending and the executor did not ask for it (main's own exit sets the flag first).
   * Either user code called {@code System.exit}, or a signal stopped the JVM.
   *
   * <p>Without a SecurityManager (deprecated, and not to be relied on from Java 17) an exit
   * cannot be refused, but it can be classified before it completes: {@code Runtime.exit} runs
   * the hooks on the calling thread and waits there, so this hook finds that thread by its stack
   * ({@link UserCodeExit}), maps it to the task attempt it runs, reports that attempt as failed
   * to the driver over the connection, which is still open (bounded by
   * {@link #USER_EXIT_REPORT_MILLIS}), and halts with {@link ExecutorBackend#EXIT_USER_CODE}
   * instead of the user's status. The failure then counts towards {@code tide.task.maxAttempts}
   * and names the task and the caller, and the ApplicationMaster, seeing that status, does not
   * count the executor's end against its node. Halting skips hooks that have not finished (a
   * FileSystem cache's close): nothing of a failed attempt needs them, and the user's status
   * (0 for a clean exit) would otherwise hide the failure from YARN. The line printed to stderr
   * reaches the container's diagnostics, which YARN quotes for a non-zero status.
   */
  private static void onShutdown(ExecutorBackend backend, String executorId) {
    Optional<UserCodeExit> userExit = UserCodeExit.find(Thread.getAllStackTraces(),
        Thread.currentThread());
    if (userExit.isEmpty()) {
      System.err.println("Executor " + executorId + " is being stopped (SIGTERM: the"
          + " NodeManager stops a container the AM released or the application ended)");
      return;
    }
    String text;
    try {
      text = backend.userCodeExited(userExit.get(), USER_EXIT_REPORT_MILLIS);
    } catch (RuntimeException e) {
      text = userExit.get().describe(executorId, null) + " (the driver was not told: " + e + ")";
    }
    System.err.println("Executor " + executorId + " exits: " + text);
    System.err.flush();
    Runtime.getRuntime().halt(ExecutorBackend.EXIT_USER_CODE);
  }

  /**
   * Starts, on a daemon thread, start-up work that the registration needs later and that logs
   * nothing, so that it overlaps this thread's logging and Netty set-up when a core is free: the
   * JCA providers behind the handshake's HMAC-SHA256 and nonces (tens of ms from cold) and the
   * management bean that gives the JVM's start time. Nothing here may touch slf4j: a second
   * thread asking slf4j while it initialises gets substitute loggers.
   */
  private static void warmUpInBackground() {
    Thread warmUp = new Thread(() -> {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(new byte[1], "HmacSHA256"));
        mac.doFinal();
        new SecureRandom().nextBytes(new byte[1]);
      } catch (GeneralSecurityException e) {
        // Nothing warmed up; the handshake reports the same failure with its context.
      }
      jvmStartMillis();
    }, "tide-executor-warm-up");
    warmUp.setDaemon(true);
    warmUp.start();
  }

  /** Milliseconds since this JVM started (the JVM's own record of its start). */
  static long millisSinceJvmStart() {
    return System.currentTimeMillis() - jvmStartMillis();
  }

  private static long jvmStartMillis() {
    return ManagementFactory.getRuntimeMXBean().getStartTime();
  }

  private static String require(Map<String, String> flags, String name) {
    String value = flags.get(name);
    if (value == null) {
      System.err.println("missing " + name + "; usage: ExecutorMain --driver host:port"
          + " --executor-id ID --app-id APP --cores N --registration-timeout-ms T");
      System.exit(2);
    }
    return value;
  }
}
