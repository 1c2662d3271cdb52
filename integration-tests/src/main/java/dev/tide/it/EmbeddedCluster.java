package dev.tide.it;

import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * get the same settings from a conf directory on their classpath, after the jars (see
 * shared/TESTING.md and {@code ContainerClassData.classpath}).
 */
public final class EmbeddedCluster implements AutoCloseable {
  /** System property: java options added to every container's, after the cluster's own. */
  public static final String EXTRA_JAVA_OPTS = "tide.it.containerJavaOpts";
  private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
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
    clientConf.set("tide.yarn.container.classpath", ContainerClassData.classpath(confDir));
    clientConf.set("tide.yarn.container.javaHome", System.getProperty("java.home"));
    clientConf.set("tide.client.pollInterval", "250ms");
    // Small JVMs: see shared/TESTING.md.
    clientConf.set("tide.am.memory", "192m");
    clientConf.set("tide.am.memoryOverhead", "128m");
    clientConf.set("tide.executor.memory", "128m");
    clientConf.set("tide.executor.memoryOverhead", "128m");
    String javaOpts = containerJavaOpts();
    clientConf.set("tide.executor.javaOpts", javaOpts);
    clientConf.set("tide.am.javaOpts", javaOpts);
    return new EmbeddedCluster(dfs, yarn, confDir, clientConf, nodeManagers);
  }

  /**
   * {@code conf} with its executors compiling hot code with C2 as well (the JVM's default), for
   * jobs whose executors process hundreds of megabytes: there the C1-only default of these
   * clusters (cheaper for the many short-lived containers) costs more than C2's compilations
   * (BoundedMemoryTest's wordcount: 70.7 s with C1 only, 56.7 s with C2).
   */
  public static Configuration withOptimizingCompiler(Configuration conf) {
    conf.set("tide.executor.javaOpts", conf.get("tide.executor.javaOpts", "")
        .replace(C1_ONLY, "").trim());
    return conf;
  }

  /**
   * Java options of every container: C1 only and the serial collector (short-lived small JVMs),
   * this JVM's log4j settings (the container classpath puts jars first, and some test jars hold
   * a log4j.properties of their own), the class-data-sharing archive when the tests turn it on
   * ({@link ContainerClassData}), and the system property {@value #EXTRA_JAVA_OPTS} last (a
   * profiler's agent, say).
   */
  private static String containerJavaOpts() {
    List<String> opts = new ArrayList<>(List.of(C1_ONLY, "-XX:+UseSerialGC"));
    URL log4j = EmbeddedCluster.class.getClassLoader().getResource("log4j.properties");
    if (log4j != null) {
      opts.add("-Dlog4j.configuration=" + log4j);
    }
    String archive = ContainerClassData.javaOption();
    if (!archive.isEmpty()) {
      opts.add(archive);
    }
    String extra = System.getProperty(EXTRA_JAVA_OPTS, "").trim();
    if (!extra.isEmpty()) {
      opts.add(extra);
    }
    return String.join(" ", opts);
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

  /**
   * Writes the settings of {@code conf} that no {@code *-default.xml} gives (about 50 of its
   * 1,600): every Configuration a container makes parses this file (a {@code YarnConfiguration}
   * both of them), and the defaults are on the container's classpath too, from the same jars.
   */
  private static void writeXml(Configuration conf, File file) throws IOException {
    Configuration set = new Configuration(false);
    for (Map.Entry<String, String> property : conf) {
      String[] sources = conf.getPropertySources(property.getKey());
      if (sources == null || !sources[sources.length - 1].endsWith("-default.xml")) {
        set.set(property.getKey(), property.getValue());
      }
    }
    try (OutputStream out = new FileOutputStream(file)) {
      set.writeXml(out);
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
