package dev.tide.it;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One {@link EmbeddedCluster} for every test class of a test JVM (a surefire fork) that needs no
 * cluster of its own, in the shape of Flink's {@code YarnTestBase}: the first class that asks
 * starts it (three NodeManagers, the settings of {@link EmbeddedCluster#start}), later classes
 * reuse it, and it stops when the JVM exits. A class that changes its cluster (restarts
 * NodeManagers, other scheduler or placement settings, other node counts it asserts on) starts
 * its own, after {@link #stop()} so that two clusters never share the JVM's heap; the next class
 * that asks starts the shared one again. Classes that share it keep their HDFS paths and
 * event-log directory to themselves and leave no application running.
 *
 * <p>Another cluster that is one per JVM and must run alone (the secure tests' Kerberized one:
 * Hadoop's security settings are JVM-wide) registers through {@link #runAlone}: {@link #stop()}
 * closes it too, {@link #get()} closes it before starting the shared cluster, and the JVM's exit
 * closes it.
 */
public final class SharedCluster {
  public static final int NODE_MANAGERS = 3;
  private static EmbeddedCluster cluster;
  private static AutoCloseable alone; // registered by runAlone, closed by stop()
  private static boolean hooked;

  private SharedCluster() {}

  /** The JVM's shared cluster, started on the first call (and after a {@link #stop()}). */
  public static synchronized EmbeddedCluster get() throws IOException {
    if (cluster == null) {
      stopAlone();
      cluster = EmbeddedCluster.start("tide-shared", NODE_MANAGERS,
          Path.of("target", "shared-cluster-" + ProcessHandle.current().pid()));
      stopAtExit();
    }
    return cluster;
  }

  /**
   * Registers {@code other}, a cluster started just now that must be the only one of the JVM
   * (call {@link #stop()} before starting it): closed by {@link #stop()}, by {@link #get()}
   * before the shared cluster starts, and when the JVM exits.
   */
  public static synchronized void runAlone(AutoCloseable other) {
    stopAlone();
    alone = other;
    stopAtExit();
  }

  /**
   * Stops the shared cluster and a {@link #runAlone} one if they run: for a class about to
   * start a cluster of its own.
   */
  public static synchronized void stop() {
    stopAlone();
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  private static void stopAlone() {
    if (alone != null) {
      AutoCloseable other = alone;
      alone = null;
      try {
        other.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop the JVM's other cluster " + other, e);
      }
    }
  }

  private static void stopAtExit() {
    if (!hooked) {
      // Stopping the NodeManagers also stops the containers they launched (executor JVMs).
      Runtime.getRuntime().addShutdownHook(new Thread(SharedCluster::stop,
          "shared-cluster-stop"));
      hooked = true;
    }
  }
}
