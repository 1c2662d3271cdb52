package dev.tide.it.placement;

import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * Like {@link dev.tide.it.EmbeddedCluster} (same fast settings, real tide_shuffle service, nodes
 * named host:port), but its CapacityScheduler also handles placement constraints
 * ({@code yarn.resourcemanager.placement-constraints.handler=scheduler}), which placements
 * {@code spread} and {@code pack} use, and its delay scheduling waits a little for node-local
 * containers (see below).
 */
public final class ConstrainedCluster implements AutoCloseable {
  private final MiniDFSCluster dfs;
  private final MiniYARNCluster yarn;
  private final int nodeManagers;
  private final Configuration clientConf;

  private ConstrainedCluster(MiniDFSCluster dfs, MiniYARNCluster yarn, int nodeManagers,
      Configuration clientConf) {
    this.dfs = dfs;
    this.yarn = yarn;
    this.nodeManagers = nodeManagers;
    this.clientConf = clientConf;
  }

  public static ConstrainedCluster start(String name, int nodeManagers, Path workDir)
      throws IOException {
    Files.createDirectories(workDir);
    Configuration conf = new YarnConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, workDir.resolve("dfs").toString());
    conf.setInt("dfs.replication", 1);
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    dfs.waitActive();
    conf.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());

    conf.set("yarn.nodemanager.aux-services", ShuffleServiceMetadata.SERVICE_NAME);
    conf.set("yarn.nodemanager.aux-services." + ShuffleServiceMetadata.SERVICE_NAME + ".class",
        "dev.tide.shuffle.yarn.TideShuffleService");
    conf.setInt("tide.shuffle.port", 0);
    conf.setInt("yarn.nodemanager.log.retain-seconds", 0);
    conf.setInt("yarn.nodemanager.delete.debug-delay-sec", 0);
    conf.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 200);
    conf.setFloat(
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 99f);
    conf.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
    conf.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
    conf.setInt("yarn.nodemanager.resource.memory-mb", 2048);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 8);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    conf.setInt("yarn.nodemanager.process-kill-wait.ms", 500);
    conf.setInt("yarn.nodemanager.sleep-delay-before-sigkill.ms", 250);
    conf.setBoolean("yarn.scheduler.include-port-in-node-name", true);
    conf.setInt("yarn.resourcemanager.am.max-attempts", 1);
    conf.set("yarn.resourcemanager.scheduler.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
        YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER);
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
    conf.addResource(new org.apache.hadoop.fs.Path(locality.toUri()));
    MiniYARNCluster yarn = new MiniYARNCluster(name, nodeManagers, 1, 1);
    yarn.init(conf);
    yarn.start();

    Configuration clientConf = new YarnConfiguration(yarn.getConfig());
    clientConf.set("fs.defaultFS", conf.get("fs.defaultFS"));
    Path confDir = workDir.resolve("container-conf");
    Files.createDirectories(confDir);
    writeXml(clientConf, confDir.resolve("yarn-site.xml").toFile());
    writeXml(clientConf, confDir.resolve("core-site.xml").toFile());
    clientConf.set("tide.yarn.container.classpath",
        confDir + File.pathSeparator + System.getProperty("java.class.path"));
    clientConf.set("tide.yarn.container.javaHome", System.getProperty("java.home"));
    clientConf.set("tide.client.pollInterval", "250ms");
    clientConf.set("tide.am.memory", "192m");
    clientConf.set("tide.am.memoryOverhead", "128m");
    clientConf.set("tide.executor.memory", "128m");
    clientConf.set("tide.executor.memoryOverhead", "128m");
    clientConf.set("tide.executor.javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    clientConf.set("tide.am.javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    return new ConstrainedCluster(dfs, yarn, nodeManagers, clientConf);
  }

  private static String finalProperty(String key, String value) {
    return "<property><name>" + key + "</name><value>" + value
        + "</value><final>true</final></property>";
  }

  private static void writeXml(Configuration conf, File file) throws IOException {
    try (OutputStream out = new FileOutputStream(file)) {
      conf.writeXml(out);
    }
  }

  /** A fresh copy of the settings a client of this cluster uses. */
  public Configuration clientConf() {
    return new Configuration(clientConf);
  }

  public FileSystem fileSystem() throws IOException {
    return dfs.getFileSystem();
  }

  /** The RM's names of the NodeManagers (host:port). */
  public List<String> nodeNames() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < nodeManagers; i++) {
      names.add(yarn.getNodeManager(i).getNMContext().getNodeId().toString());
    }
    return names;
  }

  @Override
  public void close() {
    yarn.stop();
    dfs.shutdown();
  }
}
