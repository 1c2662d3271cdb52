package dev.tide.it.placement;

import dev.tide.it.EmbeddedCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Like {@link dev.tide.it.EmbeddedCluster} (same fast settings, real tide_shuffle service, nodes
 * named host:port), but its CapacityScheduler also handles placement constraints
 * ({@code yarn.resourcemanager.placement-constraints.handler=scheduler}), which placements
 * {@code spread} and {@code pack} use, and its delay scheduling waits a little for node-local
 * containers (see below).
 */
public final class ConstrainedCluster implements AutoCloseable {
  private final EmbeddedCluster cluster;

  private ConstrainedCluster(EmbeddedCluster cluster) {
    this.cluster = cluster;
  }

  public static ConstrainedCluster start(String name, int nodeManagers, Path workDir)
      throws IOException {
    Files.createDirectories(workDir);
    // Delay scheduling as an admin who cares about locality sets it. The test jar's
    // capacity-scheduler.xml sets node-locality-delay to -1 (no waiting: a node-local request is
    // honoured only when its node happens to heartbeat first), and that file is loaded after
    // this configuration, so the values go in as final properties it cannot override. Going
    // off the requested node then waits for more than min(nodes, 3) missed opportunities.
    Path locality = workDir.resolve("delay-scheduling.xml");
    Files.writeString(locality, "<configuration>"
        + finalProperty("yarn.scheduler.capacity.node-locality-delay", "3")
        + finalProperty("yarn.scheduler.capacity.rack-locality-additional-delay", "0")
        + "</configuration>");
    return new ConstrainedCluster(EmbeddedCluster.start(name, nodeManagers, workDir, conf -> {
      conf.set("yarn.resourcemanager.scheduler.class",
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
      conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
          YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER);
      conf.addResource(new org.apache.hadoop.fs.Path(locality.toUri()));
    }));
  }

  private static String finalProperty(String key, String value) {
    return "<property><name>" + key + "</name><value>" + value
        + "</value><final>true</final></property>";
  }

  /** A fresh copy of the settings a client of this cluster uses. */
  public Configuration clientConf() {
    return cluster.clientConf();
  }

  public FileSystem fileSystem() throws IOException {
    return cluster.fileSystem();
  }

  /** The RM's names of the NodeManagers (host:port). */
  public List<String> nodeNames() {
    return cluster.nodeNames();
  }

  @Override
  public void close() {
    cluster.close();
  }
}
