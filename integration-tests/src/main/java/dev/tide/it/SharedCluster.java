package dev.tide.it;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One {@link EmbeddedCluster} for every test class of a test JVM (a surefire fork) that needs no
 * cluster of its own, in the shape of Flink's {@code YarnTestBase}: the first class that asks
 * starts it (three NodeManagers, the settings of {@link EmbeddedCluster#start}), later classes
 * reuse it, and it stops when the JVM exits. A class that changes its cluster (restarts
 * NodeManagers, other scheduler or placement settings, other node counts it asserts on) starts
 * its own. Classes that share it keep their HDFS paths and event-log directory to themselves and
 * leave no application running.
 */
public final class SharedCluster {
  public static final int NODE_MANAGERS = 3;
  private static EmbeddedCluster cluster;

  private SharedCluster() {}

  /** The JVM's shared cluster, started on the first call. */
  public static synchronized EmbeddedCluster get() throws IOException {
    if (cluster == null) {
      EmbeddedCluster started = EmbeddedCluster.start("tide-shared", NODE_MANAGERS,
          Path.of("target", "shared-cluster"));
      // Stopping the NodeManagers also stops the containers they launched (executor JVMs).
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-cluster-stop"));
      cluster = started;
    }
    return cluster;
  }
}
