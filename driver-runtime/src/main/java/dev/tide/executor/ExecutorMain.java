package dev.tide.executor;

import dev.tide.driver.ContainerTokenFile;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.LoggerFactory;

/**
 * Entry point of an executor container: {@code ExecutorMain --driver host:port --executor-id N
 * --app-id ID --cores C --registration-timeout-ms T}. The secret comes from the container's credentials, the local dirs from
 * {@code LOCAL_DIRS}, the host from {@code NM_HOST}. Exits 0 when the driver says so, 1 when the
 * driver is gone or refuses it.
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
        localDirs, host, registrationTimeout);
    // Set by whoever ends the JVM first: a signal's shutdown (the hook) or main's own exit.
    AtomicBoolean ending = new AtomicBoolean();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (ending.compareAndSet(false, true)) {
        System.err.println("Executor " + settings.executorId() + " is being stopped (SIGTERM:"
            + " the NodeManager stops a container the AM released or the application ended)");
      }
    }, "tide-executor-shutdown"));
    LoggerFactory.getLogger(ExecutorMain.class).info(
        "Executor {} starting: main entered {} ms after the JVM started, settings read at {} ms",
        settings.executorId(), mainEntered - jvmStartMillis(), millisSinceJvmStart());
    int code;
    try (ExecutorBackend backend = new ExecutorBackend(settings)) {
      code = backend.run().code(); // run() logged the reason
    }
    if (ending.compareAndSet(false, true)) {
      // Not while a SIGTERM shutdown runs: exiting from here would replace its status.
      System.exit(code);
    }
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
