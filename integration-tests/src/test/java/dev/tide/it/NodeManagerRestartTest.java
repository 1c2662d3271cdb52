package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.testing.Await;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real NodeManager restart under {@code tide_shuffle}: a MiniYARNCluster runs only the
 * ResourceManager, and each test starts its own {@link NodeManager} (the class YARN runs, over
 * RPC) with the aux service loaded from {@code yarn.nodemanager.aux-services}, a fixed NM
 * address (recovery refuses ephemeral ports), a fixed {@code tide.shuffle.port} as in
 * production, and its own local, log and recovery dirs. MiniYARNCluster cannot restart its own
 * NodeManagers (it only has {@code restartResourceManager}).
 *
 * <p>The application is made known to the service the way a user's job does it: the test is the
 * application's (unmanaged) AM, and starts one container on the NodeManager with the launch
 * context of Tide's AM ({@link ExecutorLaunchContexts}, whose service data carries the
 * application secret for {@code tide_shuffle}); only the command is replaced by {@code true}.
 * The container has exited before the restart, as an executor removed for idleness has: a
 * restarted NodeManager re-sends a container's service data ({@code ContainerImpl}'s
 * {@code RequestResourcesTransition}) only for containers it recovers as not completed, so here
 * the application's secret and user can come from the service's own recovery store alone.
 * Map output is then committed into the NodeManager's local dirs with {@link MapOutputCommitter}
 * and fetched with {@link ShuffleClient} from the port the NodeManager reported at
 * {@code startContainer}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NodeManagerRestartTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Path WORK = Path.of("target", "nm-restart-" + ProcessHandle.current().pid());
  private static final byte[] SECRET =
      "secret-of-the-restart-app-32-byt".getBytes(StandardCharsets.UTF_8);
  private static final byte[] WRONG_SECRET =
      "not-the-secret-of-the-app-32-byt".getBytes(StandardCharsets.UTF_8);
  /** Reduce partition lengths of each map output; map m holds {@code mapBytes(m, r)}. */
  private static final int[] LENGTHS = {700, 0, 40_000};
  private static final int MAPS = 3;
  private static MiniYARNCluster resourceManagerOnly;

  private NodeManager nodeManager;

  @BeforeAll
  static void startResourceManager() {
    Configuration conf = new YarnConfiguration();
    EmbeddedCluster.applyYarnTestSettings(conf); // the NodeManagers' settings start from these
    SharedCluster.stop(); // this class starts a cluster of its own
    resourceManagerOnly = new MiniYARNCluster("tide-nm-restart", 0, 1, 1);
    resourceManagerOnly.init(conf);
    resourceManagerOnly.start();
  }

  @AfterAll
  static void stopResourceManager() {
    if (resourceManagerOnly != null) {
      resourceManagerOnly.stop();
    }
  }

  @AfterEach
  void stopNodeManager() {
    if (nodeManager != null) {
      nodeManager.stop();
    }
  }

  @Test
  void runningApplicationsMapOutputIsServedAgainAfterASupervisedRestart() throws Exception {
    restartUnderARunningApplication("supervised", true, true, (am, port) -> {
      String app = am.appId().toString();
      assertTrue(nodeManager.getNMContext().getApplications().containsKey(am.appId()),
          "the restarted NodeManager recovered the application");
      long fetchStart = System.nanoTime();
      assertAllMapOutputServed(app, port);
      System.out.printf("first fetch after the restart served in %d ms%n",
          millis(fetchStart, System.nanoTime()));
      assertRefused(app, WRONG_SECRET, port, "a wrong secret after the restart");
      am.finish(DEADLINE);
      // The RM tells the NodeManager at its next heartbeat, which tells the service.
      awaitRefused(app, port, "after the application finished");
    });
  }

  @Test
  void withoutRecoveryARestartedNodeManagerRefusesEarlierApplications() throws Exception {
    restartUnderARunningApplication("unrecovered", false, false, (am, port) ->
        assertRefused(am.appId().toString(), SECRET, port, "after a restart without recovery"));
  }

  @Test
  void withRecoveryButUnsupervisedAGracefulStopEndsTheApplicationsOnTheNode() throws Exception {
    // Hadoop's NodeManager, stopped without yarn.nodemanager.recovery.supervised, finishes its
    // applications on the way down; the service forgets them, so recovery brings nothing back.
    restartUnderARunningApplication("unsupervised", true, false, (am, port) -> {
      assertFalse(nodeManager.getNMContext().getApplications().containsKey(am.appId()),
          "the restarted NodeManager did not recover the application");
      assertRefused(am.appId().toString(), SECRET, port, "after an unsupervised restart");
    });
  }

  /** What a test checks once the NodeManager is back, while the application still runs. */
  @FunctionalInterface
  private interface AfterRestart {
    void check(UnmanagedApplicationMaster am, int shufflePort) throws Exception;
  }

  /**
   * Starts a NodeManager (with or without recovery), an application with one finished executor
   * and its map output served there, then stops the NodeManager, starts a new one with the same
   * configuration and hands over to {@code afterRestart}.
   */
  private void restartUnderARunningApplication(String name, boolean recovery,
      boolean supervised, AfterRestart afterRestart) throws Exception {
    Configuration nmConf = nodeManagerConf(WORK.resolve(name), recovery, supervised);
    nodeManager = startNodeManager(nmConf);
    try (UnmanagedApplicationMaster am = UnmanagedApplicationMaster.submit(clientConf(),
        "nm-restart-" + name, DEADLINE)) {
      int port = runExecutorThatLeavesMapOutput(am, nmConf);
      assertAllMapOutputServed(am.appId().toString(), port);

      long stopStart = System.nanoTime();
      nodeManager.stop();
      long stopped = System.nanoTime();
      nodeManager = startNodeManager(nmConf);
      System.out.printf("NodeManager restart (recovery %s, supervised %s): stop %d ms, start"
          + " until RUNNING at the RM %d ms%n", recovery, supervised, millis(stopStart, stopped),
          millis(stopped, System.nanoTime()));
      assertEquals(port, shufflePort(nodeManager), "the restarted service is on the same port");
      afterRestart.check(am, port);
    }
  }

  /**
   * Starts one container with the executor launch context of Tide's AM, waits for it to exit,
   * then commits {@link #MAPS} map outputs into the application's local dirs on the
   * NodeManager.
   *
   * @return the {@code tide_shuffle} port the NodeManager answered {@code startContainer} with
   */
  private static int runExecutorThatLeavesMapOutput(UnmanagedApplicationMaster am,
      Configuration nmConf) throws Exception {
    String app = am.appId().toString();
    ContainerLaunchContext launch = new ExecutorLaunchContexts(new Configuration(false), app,
        "localhost", 40000, SECRET, Map.of()).create("1");
    launch.setCommands(List.of("true"));
    UnmanagedApplicationMaster.StartedContainer executor = am.startContainer(launch, DEADLINE);
    int port = ShuffleServiceMetadata.decodePort(
        executor.serviceMetadata().get(ShuffleServiceMetadata.SERVICE_NAME));
    assertEquals(nmConf.getInt("tide.shuffle.port", -1), port);
    assertEquals(ContainerExitStatus.SUCCESS,
        am.awaitCompleted(executor.container().getId(), DEADLINE).getExitStatus());

    String user = UserGroupInformation.getCurrentUser().getShortUserName();
    List<Path> appDirs = new ArrayList<>();
    for (String dir : nmConf.getTrimmedStrings(YarnConfiguration.NM_LOCAL_DIRS)) {
      appDirs.add(ShuffleLayout.appLocalDir(Path.of(dir), user, app));
    }
    for (int map = 0; map < MAPS; map++) {
      commitMapOutput(ShuffleLayout.chooseAppDir(appDirs, 0, map), map);
    }
    return port;
  }

  /** Writes a map output to a temp file and commits it, as an executor does. */
  private static void commitMapOutput(Path appDir, int map) throws IOException {
    Path temp = MapOutputCommitter.tempDataFile(appDir, 0, map, 1);
    long[] partitionLengths = new long[LENGTHS.length];
    try (OutputStream out = Files.newOutputStream(temp)) {
      for (int reduce = 0; reduce < LENGTHS.length; reduce++) {
        out.write(mapBytes(map, reduce));
        partitionLengths[reduce] = LENGTHS[reduce];
      }
    }
    if (!MapOutputCommitter.commit(appDir, 0, map, temp, partitionLengths)) {
      throw new IllegalStateException("map " + map + " of " + appDir + " was already committed");
    }
  }

  /** Recognizable bytes of one partition: "m<map>r<reduce>;" repeated. */
  private static byte[] mapBytes(int map, int reduce) {
    byte[] pattern = ("m" + map + "r" + reduce + ";").getBytes(StandardCharsets.US_ASCII);
    byte[] bytes = new byte[LENGTHS[reduce]];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = pattern[i % pattern.length];
    }
    return bytes;
  }

  private static void assertAllMapOutputServed(String app, int port) throws Exception {
    List<BlockId> blocks = new ArrayList<>();
    for (int map = 0; map < MAPS; map++) {
      for (int reduce = 0; reduce < LENGTHS.length; reduce++) {
        blocks.add(BlockId.of(0, map, reduce));
      }
    }
    try (ShuffleClient client = new ShuffleClient(app, SECRET)) {
      List<byte[]> fetched = client.fetch("localhost", port, blocks);
      for (int i = 0; i < blocks.size(); i++) {
        BlockId block = blocks.get(i);
        assertArrayEquals(mapBytes(block.mapId(), block.reduceStart()), fetched.get(i),
            "bytes of " + block);
      }
    }
  }

  private static void assertRefused(String app, byte[] secret, int port, String when) {
    try (ShuffleClient client = new ShuffleClient(app, secret)) {
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("localhost", port, List.of(BlockId.of(0, 0, 0))), when);
      assertEquals(Reason.AUTH, e.reason(), when + ": " + e.getMessage());
    }
  }

  /**
   * Fetches with the right secret until the service refuses the application. NOT_FOUND on the
   * way is the NodeManager's application clean-up deleting the map output before it tells the
   * service that the application finished.
   */
  private static void awaitRefused(String app, int port, String when) throws Exception {
    Await.until(DEADLINE, app + " refused " + when, () -> {
      try (ShuffleClient client = new ShuffleClient(app, SECRET)) {
        client.fetch("localhost", port, List.of(BlockId.of(0, 0, 0)));
      } catch (ShuffleFetchException e) {
        if (e.reason() == Reason.AUTH) {
          return true;
        }
        if (e.reason() != Reason.NOT_FOUND) {
          throw e;
        }
      }
      return false;
    });
  }

  /**
   * A NodeManager's settings: the cluster's (RM addresses, and tide_shuffle with the other
   * {@link EmbeddedCluster#applyYarnTestSettings} settings), a fixed NM address and shuffle port
   * so that a restart comes back at the same place, and dirs of its own under {@code dir}.
   */
  private static Configuration nodeManagerConf(Path dir, boolean recovery, boolean supervised)
      throws IOException {
    FileUtil.fullyDelete(dir.toFile());
    Configuration conf = new YarnConfiguration(resourceManagerOnly.getConfig());
    conf.set(YarnConfiguration.NM_LOCAL_DIRS, createDir(dir.resolve("local-0")) + ","
        + createDir(dir.resolve("local-1")));
    conf.set(YarnConfiguration.NM_LOG_DIRS, createDir(dir.resolve("logs")));
    conf.set(YarnConfiguration.NM_ADDRESS, "localhost:" + freePort());
    conf.set(YarnConfiguration.NM_LOCALIZER_ADDRESS, "localhost:0");
    conf.set(YarnConfiguration.NM_WEBAPP_ADDRESS, "localhost:0");
    conf.setBoolean(YarnConfiguration.NM_RECOVERY_ENABLED, recovery);
    conf.set(YarnConfiguration.NM_RECOVERY_DIR, createDir(dir.resolve("recovery")));
    // A supervised NodeManager keeps its applications and containers when it stops.
    conf.setBoolean(YarnConfiguration.NM_RECOVERY_SUPERVISED, supervised);
    conf.setInt("tide.shuffle.port", freePort());
    return conf;
  }

  /** Starts a NodeManager and waits until the RM lists it RUNNING. */
  private static NodeManager startNodeManager(Configuration conf) throws Exception {
    NodeManager nm = new NodeManager();
    nm.init(new YarnConfiguration(conf));
    nm.start();
    var nodeId = nm.getNMContext().getNodeId();
    java.util.function.Supplier<RMNode> node = () -> resourceManagerOnly.getResourceManager()
        .getRMContext().getRMNodes().get(nodeId);
    try {
      Await.until(DEADLINE, () -> "NodeManager " + nodeId + " RUNNING at the RM: " + node.get(),
          () -> node.get() != null && node.get().getState() == NodeState.RUNNING);
    } catch (AssertionError e) {
      nm.stop();
      throw e;
    }
    return nm;
  }

  private static int shufflePort(NodeManager nm) {
    return ShuffleServiceMetadata.decodePort(nm.getNMContext().getAuxServices().getMetaData()
        .get(ShuffleServiceMetadata.SERVICE_NAME));
  }

  private static Configuration clientConf() {
    return new YarnConfiguration(resourceManagerOnly.getConfig());
  }

  private static String createDir(Path dir) throws IOException {
    return Files.createDirectories(dir).toAbsolutePath().toString();
  }

  /** A port free now; a NodeManager restart must find the same one again. */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static long millis(long fromNanos, long toNanos) {
    return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
  }
}
