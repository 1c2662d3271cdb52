package dev.tide.it;

import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * An in-process Hadoop: a MiniDFSCluster and a MiniYARNCluster whose NodeManagers load the real
 * {@code tide_shuffle} aux service. Used by the integration tests and the embedded demo.
 * {@link #clientConf()} is what a user's client would read from its Hadoop conf dir; containers
 * get the same settings from a conf directory first on their classpath (see shared/TESTING.md).
 */
public final class EmbeddedCluster implements AutoCloseable {
  private final MiniDFSCluster dfs;
  private final MiniYARNCluster yarn;
  private final Path confDir;
  private final Configuration clientConf;
  private final int nodeManagers;
  private YarnClient yarnClient; // made when first asked for, stopped by close()

  private EmbeddedCluster(MiniDFSCluster dfs, MiniYARNCluster yarn, Path confDir,
      Configuration clientConf, int nodeManagers) {
    this.nodeManagers = nodeManagers;
    this.dfs = dfs;
    this.yarn = yarn;
    this.confDir = confDir;
    this.clientConf = clientConf;
  }

  /** Starts HDFS (one DataNode) and YARN with {@code nodeManagers} NodeManagers. */
  public static EmbeddedCluster start(String name, int nodeManagers, Path workDir)
      throws IOException {
    return start(name, nodeManagers, workDir, conf -> { });
  }

  /**
   * Like {@link #start(String, int, Path)}, with {@code yarnSettings} applied to the cluster's
   * configuration last (for example another scheduler or placement-constraint settings).
   */
  public static EmbeddedCluster start(String name, int nodeManagers, Path workDir,
      java.util.function.Consumer<Configuration> yarnSettings) throws IOException {
    return start(name, nodeManagers, workDir, new YarnConfiguration(), yarnSettings);
  }

  /**
   * Like {@link #start(String, int, Path, java.util.function.Consumer)}, from {@code base}: the
   * settings both HDFS and YARN start with (a Kerberized cluster's security settings, say).
   */
  public static EmbeddedCluster start(String name, int nodeManagers, Path workDir,
      Configuration base, java.util.function.Consumer<Configuration> yarnSettings)
      throws IOException {
    Files.createDirectories(workDir);
    Configuration conf = new YarnConfiguration(base);
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, workDir.resolve("dfs").toString());
    conf.setLong("dfs.blocksize", 1024 * 1024);
    conf.setInt("dfs.replication", 1);
    MiniDFSCluster dfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    dfs.waitActive();
    conf.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());

    applyYarnTestSettings(conf);
    yarnSettings.accept(conf);
    // MiniYARNCluster works in (and first deletes) target/<name>: a name of this JVM's own, so
    // that test JVMs running side by side (surefire forks) never share or delete each other's.
    MiniYARNCluster yarn = new MiniYARNCluster(name + "-" + ProcessHandle.current().pid(),
        nodeManagers, 1, 1);
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
    // Small JVMs: see shared/TESTING.md.
    clientConf.set("tide.am.memory", "192m");
    clientConf.set("tide.am.memoryOverhead", "128m");
    clientConf.set("tide.executor.memory", "128m");
    clientConf.set("tide.executor.memoryOverhead", "128m");
    clientConf.set("tide.executor.javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    clientConf.set("tide.am.javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    return new EmbeddedCluster(dfs, yarn, confDir, clientConf, nodeManagers);
  }

  /**
   * The settings of shared/TESTING.md that keep in-process NodeManagers fast and small, plus
   * the {@code tide_shuffle} aux service on an ephemeral port (the NodeManagers share the JVM).
   * For the ResourceManager's and every NodeManager's configuration.
   */
  public static void applyYarnTestSettings(Configuration conf) {
    conf.set("yarn.nodemanager.aux-services", ShuffleServiceMetadata.SERVICE_NAME);
    conf.set("yarn.nodemanager.aux-services." + ShuffleServiceMetadata.SERVICE_NAME + ".class",
        "dev.tide.shuffle.yarn.TideShuffleService");
    conf.setInt("tide.shuffle.port", 0); // all NodeManagers share this JVM
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

  /** The HDFS half (a test that restarts its NameNode with other settings, say). */
  public MiniDFSCluster dfs() {
    return dfs;
  }

  public MiniYARNCluster yarn() {
    return yarn;
  }

  /** The RM's names of the NodeManagers (host:port). */
  public java.util.List<String> nodeNames() {
    java.util.List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < nodeManagers; i++) {
      names.add(yarn.getNodeManager(i).getNMContext().getNodeId().toString());
    }
    return names;
  }

  public Path confDir() {
    return confDir;
  }

  /** A started YarnClient of this cluster, for tests to look at applications; close() stops it. */
  public synchronized YarnClient yarnClient() {
    if (yarnClient == null) {
      yarnClient = YarnClient.createYarnClient();
      yarnClient.init(clientConf());
      yarnClient.start();
    }
    return yarnClient;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (yarnClient != null) {
        yarnClient.stop();
      }
    }
    yarn.stop();
    dfs.shutdown();
  }
}
