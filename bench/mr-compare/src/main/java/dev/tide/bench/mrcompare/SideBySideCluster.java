package dev.tide.bench.mrcompare;

import dev.tide.it.EmbeddedCluster;
import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * One MiniDFSCluster and one MiniYARNCluster (two NodeManagers) whose NodeManagers load both
 * shuffle services: Tide's {@code tide_shuffle} and MapReduce's {@code mapreduce_shuffle}
 * ({@code org.apache.hadoop.mapred.ShuffleHandler}), each on an ephemeral port, as all
 * NodeManagers share this JVM. Built on {@link EmbeddedCluster}; gives each engine a client
 * configuration with the same container sizes and JVM options.
 */
final class SideBySideCluster implements AutoCloseable {
  static final String MAPREDUCE_SHUFFLE = "mapreduce_shuffle";
  static final String TIDE_EVENT_LOG_DIR = "/tide-events";
  private static final int NODE_MANAGERS = 2;

  private final EmbeddedCluster cluster;
  private final BenchSettings settings;
  private boolean closed;

  private SideBySideCluster(EmbeddedCluster cluster, BenchSettings settings) {
    this.cluster = cluster;
    this.settings = settings;
  }

  static SideBySideCluster start(BenchSettings settings) throws IOException {
    EmbeddedCluster cluster = EmbeddedCluster.start("mr-compare", NODE_MANAGERS,
        settings.work().resolve("cluster"), conf -> {
          conf.set("yarn.nodemanager.aux-services",
              ShuffleServiceMetadata.SERVICE_NAME + "," + MAPREDUCE_SHUFFLE);
          conf.set("yarn.nodemanager.aux-services." + MAPREDUCE_SHUFFLE + ".class",
              "org.apache.hadoop.mapred.ShuffleHandler");
          conf.setInt("mapreduce.shuffle.port", 0); // the NodeManagers share this JVM
          // Files written through clientConf() get this block size (EmbeddedCluster's own
          // FileSystem keeps 1 MiB blocks).
          conf.setLong("dfs.blocksize", settings.blockBytes());
        });
    return new SideBySideCluster(cluster, settings);
  }

  /** A new FileSystem (not the cached one) that writes blocks of {@code blockBytes}. */
  FileSystem inputFileSystem() throws IOException {
    Configuration conf = cluster.clientConf();
    conf.setLong("dfs.blocksize", settings.blockBytes());
    return FileSystem.newInstance(conf);
  }

  FileSystem fileSystem() throws IOException {
    return cluster.fileSystem();
  }

  MiniYARNCluster yarn() {
    return cluster.yarn();
  }

  /**
   * A client configuration for Tide's wordcount and sort; each application writes its event log
   * to {@link #TIDE_EVENT_LOG_DIR} in HDFS.
   */
  Configuration tideConf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.executor.memory", settings.heapMb() + "m");
    conf.set("tide.executor.memoryOverhead", settings.overheadMb() + "m");
    conf.set("tide.executor.javaOpts", settings.javaOpts());
    conf.set("tide.am.memory", settings.amHeapMb() + "m");
    conf.set("tide.am.memoryOverhead", settings.overheadMb() + "m");
    conf.set("tide.am.javaOpts", settings.javaOpts());
    conf.setInt("tide.wordcount.reducers", settings.reducers());
    conf.setInt("tide.sort.reducers", settings.sortReducers());
    conf.set("tide.eventLog.dir", conf.get("fs.defaultFS") + TIDE_EVENT_LOG_DIR);
    conf.set("tide.dynamicAllocation.executorIdleTimeout", settings.idleTimeout());
    return conf;
  }

  /**
   * A client configuration for MapReduce: the same container sizes, JVM options and classpath
   * (the cluster's configuration first, then this JVM's classpath) as Tide's containers get.
   */
  Configuration mapReduceConf() {
    Configuration conf = cluster.clientConf();
    conf.set("mapreduce.framework.name", "yarn");
    String taskOpts = "-Xmx" + settings.heapMb() + "m " + settings.javaOpts();
    int taskContainerMb = settings.heapMb() + settings.overheadMb();
    conf.setInt("mapreduce.map.memory.mb", taskContainerMb);
    conf.setInt("mapreduce.reduce.memory.mb", taskContainerMb);
    conf.set("mapreduce.map.java.opts", taskOpts);
    conf.set("mapreduce.reduce.java.opts", taskOpts);
    conf.setInt("yarn.app.mapreduce.am.resource.mb", settings.amHeapMb() + settings.overheadMb());
    conf.set("yarn.app.mapreduce.am.command-opts",
        "-Xmx" + settings.amHeapMb() + "m " + settings.javaOpts());
    conf.setInt("mapreduce.job.reduces", settings.reducers());
    // Tide runs no speculative copies; neither does MapReduce here.
    conf.setBoolean("mapreduce.map.speculative", false);
    conf.setBoolean("mapreduce.reduce.speculative", false);

    String javaHome = "JAVA_HOME=" + System.getProperty("java.home");
    conf.set("yarn.app.mapreduce.am.env", javaHome);
    conf.set("mapreduce.map.env", javaHome);
    conf.set("mapreduce.reduce.env", javaHome);
    // The containers' classpath holds what Tide's containers get (no job jar is localized by
    // either engine): MRApps puts this JVM's java.class.path on it by itself on a mini cluster
    // (yarn.is.minicluster), then these entries (instead of $HADOOP_*_HOME/share/...). The
    // conf dir comes after the jars here; MapReduce's AM and tasks read job.xml, which holds
    // the whole client configuration, so its place does not matter.
    conf.set("yarn.application.classpath", cluster.confDir().toString());
    conf.set("mapreduce.application.classpath", cluster.confDir().toString());
    // No JobHistoryServer runs: the client takes a finished job's state from the RM.
    conf.set("mapreduce.jobhistory.address", "");
    conf.set("yarn.app.mapreduce.am.staging-dir", "/mr-staging");
    // Tools that wait with Job.waitForCompletion (TeraGen, TeraSort, TeraValidate) poll as
    // Tide's client does here, not every 5 s.
    conf.setInt("mapreduce.client.completion.pollinterval", 250);
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 250);
    return conf;
  }

  /** {@link #mapReduceConf()} with {@code sortReducers} reduce tasks, for TeraSort. */
  Configuration mapReduceSortConf() {
    Configuration conf = mapReduceConf();
    conf.setInt("mapreduce.job.reduces", settings.sortReducers());
    return conf;
  }

  Path confDir() {
    return cluster.confDir();
  }

  /** Stops YARN (its NodeManagers kill their containers) and HDFS; a second call does nothing. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      cluster.close();
    }
  }
}
