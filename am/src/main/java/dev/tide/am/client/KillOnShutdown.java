package dev.tide.am.client;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * What the client does when its JVM is stopped (Ctrl-C, SIGTERM) while it follows an
 * application that has not ended: kills the application and deletes its staging directory.
 *
 * <p>It runs in Hadoop's {@link ShutdownHookManager} at a priority above
 * {@link FileSystem#SHUTDOWN_HOOK_PRIORITY}, so before the hook that closes the cached
 * FileSystems (as MapReduce's and Spark's clients do): as a JVM hook of its own it raced that
 * hook and lost ("Cannot delete staging directory ... Filesystem closed"). The kill is bounded
 * by {@link #KILL_WAIT}: {@code YarnClient.killApplication} waits until the ResourceManager
 * reports the application ended and retries an unreachable ResourceManager for up to {@code
 * yarn.resourcemanager.connect.max-wait.ms} (15 min), and a client that does not exit after
 * Ctrl-C is worse than one that says the kill is unconfirmed.
 *
 * <p>Threading: {@link #run} on the shutdown hook manager's thread; the other methods on the
 * client's thread.
 */
final class KillOnShutdown implements Runnable {
  static final int PRIORITY = FileSystem.SHUTDOWN_HOOK_PRIORITY + 20;
  /** How long the hook waits for the ResourceManager to confirm the kill. */
  static final Duration KILL_WAIT = Duration.ofSeconds(20);
  /** The hook's bound in the shutdown hook manager: the kill, then the staging directory. */
  private static final Duration HOOK_TIMEOUT = KILL_WAIT.plusSeconds(10);

  private final YarnClient yarn;
  private final ApplicationId appId;
  private final Runnable deleteStaging;
  private final PrintStream err;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile boolean applicationEnded;

  KillOnShutdown(YarnClient yarn, ApplicationId appId, Runnable deleteStaging, PrintStream err) {
    this.yarn = yarn;
    this.appId = appId;
    this.deleteStaging = deleteStaging;
    this.err = err;
  }

  void register() {
    ShutdownHookManager.get().addShutdownHook(this, PRIORITY, HOOK_TIMEOUT.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Removes the hook; when the JVM is already shutting down (the hook runs or has run) waits
   * for it to finish, so that the YarnClient it uses is not stopped under it.
   */
  void unregister() {
    try {
      ShutdownHookManager.get().removeShutdownHook(this);
    } catch (IllegalStateException e) {
      try {
        done.await(HOOK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The client saw the application end: nothing to kill. */
  void applicationEnded() {
    applicationEnded = true;
  }

  @Override
  public void run() {
    try {
      if (!applicationEnded) {
        err.println("Interrupted: killing " + appId);
        kill();
        deleteStaging.run();
      }
    } finally {
      done.countDown();
    }
  }

  private void kill() {
    CompletableFuture<Void> kill = new CompletableFuture<>();
    Thread killer = new Thread(() -> {
      try {
        yarn.killApplication(appId);
        kill.complete(null);
      } catch (Throwable t) {
        kill.completeExceptionally(t);
      }
    }, "tide-kill-" + appId);
    killer.setDaemon(true);
    killer.start();
    try {
      kill.get(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      err.println("Killed " + appId);
    } catch (TimeoutException e) {
      err.println("Could not confirm the kill of " + appId + " within " + KILL_WAIT.toSeconds()
          + " s (ResourceManager slow or unreachable); check with: yarn application -status "
          + appId);
    } catch (ExecutionException e) {
      err.println("Could not kill " + appId + ": " + e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("Interrupted while killing " + appId);
    }
  }
}
