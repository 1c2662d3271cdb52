package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.allocation.ExitStatusClassifier;
import dev.tide.am.allocation.MaxExecutorFailures;
import dev.tide.am.yarn.ContainerRequestReconciler;
import dev.tide.am.yarn.DriverCallbacks;
import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.am.yarn.ExecutorLauncher;
import dev.tide.am.yarn.YarnAllocator;
import dev.tide.app.AppSecret;
import dev.tide.driver.events.EventName;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.testing.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.impl.AMRMClientImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The allocator against a real ResourceManager (MiniYARNCluster, 2 NodeManagers, executors of
 * half a NodeManager's memory: room for 4): when the target drops while requests are pending, those
 * requests are withdrawn from the RM and YARN allocates nothing more even once room frees up;
 * executors the driver kills are released and reported as ended, not failed; containers that
 * arrive after the target dropped are released at once, no executor started; when executor
 * failures have excluded every node, the oldest exclusion is lifted and an executor starts
 * there. The allocator runs
 * as an unmanaged AM of the test JVM, with YARN's real AMRM client; containers are not started
 * (a stand-in NodeManager call returns the shuffle port), which the RM does not need.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AllocatorFlowTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    long pid = ProcessHandle.current().pid();
    SharedCluster.stop(); // this class starts a cluster of its own
    cluster = EmbeddedCluster.start("tide-allocator-flow-" + pid, 2,
        Path.of("target", "allocator-flow-cluster-" + pid));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * YARN's AMRM client, counting the containers the RM hands out; it can hold the allocator
   * thread right after a heartbeat (the RM has the requests, the AM hears nothing) to recreate
   * the lag that makes the RM hand out containers no longer wanted.
   */
  static final class CountingAmrmClient extends AMRMClientImpl<ContainerRequest> {
    final AtomicInteger allocated = new AtomicInteger();
    final AtomicInteger heartbeats = new AtomicInteger();
    private boolean holdNext;
    private boolean holding;

    @Override
    public AllocateResponse allocate(float progress)
        throws org.apache.hadoop.yarn.exceptions.YarnException, java.io.IOException {
      AllocateResponse response = super.allocate(progress);
      allocated.addAndGet(response.getAllocatedContainers().size());
      heartbeats.incrementAndGet();
      synchronized (this) {
        if (holdNext) {
          holdNext = false;
          holding = true;
          notifyAll();
          long deadline = System.nanoTime() + DEADLINE.toNanos();
          while (holding && System.nanoTime() < deadline) {
            try {
              wait(100);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          holding = false;
        }
      }
      return response;
    }

    synchronized void holdAfterNextHeartbeat() {
      holdNext = true;
    }

    synchronized boolean holding() {
      return holding;
    }

    synchronized void resume() {
      holding = false;
      notifyAll();
    }
  }

  /** What the allocator tells the driver. */
  static final class RecordingDriver implements DriverCallbacks {
    final List<String> launched = new CopyOnWriteArrayList<>();
    final List<String> exited = new CopyOnWriteArrayList<>();
    final List<String> aborts = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public long tasksSucceeded() {
      return 0; // no tasks here: every executor failure is one in a row
    }

    @Override
    public void executorLaunched(String executorId, String host, int shufflePort,
        long sinceAllocationMillis) {
      launched.add(executorId);
    }

    @Override
    public void executorExited(String executorId, boolean failure, String diagnostics) {
      exited.add(executorId + (failure ? " failed: " : " ended: ") + diagnostics);
    }

    @Override
    public void abort(String diagnostics) {
      aborts.add(diagnostics);
    }

    @Override
    public void logEvent(EventName event, Object... keyValues) {
      StringBuilder line = new StringBuilder(event.wireName());
      for (Object value : keyValues) {
        line.append(' ').append(value);
      }
      events.add(line.toString());
    }

    @Override
    public boolean isExecutorRegistered(String executorId) {
      return true;
    }

    @Override
    public boolean isExecutorGone(String executorId) {
      return false;
    }
  }

  /**
   * One unmanaged-AM application with the allocator: registered with the RM, executors of half
   * a NodeManager's memory, containers "started" by a stand-in that returns the shuffle port.
   */
  static final class AllocatorApp implements AutoCloseable {
    final YarnClient yarn = YarnClient.createYarnClient();
    final CountingAmrmClient amrm = new CountingAmrmClient();
    final RecordingDriver driver = new RecordingDriver();
    final ExecutorService launcherPool = Executors.newFixedThreadPool(2);
    final ApplicationAttemptId attempt;
    final YarnAllocator allocator;
    /** Launches the stand-in NodeManager still refuses. */
    private final AtomicInteger launchesToRefuse;

    AllocatorApp() throws Exception {
      this(0, 0);
    }

    /**
     * @param maxFailuresPerNode tide.yarn.maxFailuresPerHost; 0 never excludes a node
     * @param refusedLaunches how many launches the stand-in NodeManager refuses first (each an
     *     executor failure on that node)
     */
    AllocatorApp(int maxFailuresPerNode, int refusedLaunches) throws Exception {
      launchesToRefuse = new AtomicInteger(refusedLaunches);
      Configuration conf = new Configuration(cluster.yarn().getConfig());
      yarn.init(conf);
      yarn.start();
      attempt = submitUnmanaged(yarn);
      UserGroupInformation am = UserGroupInformation.createRemoteUser(
          UserGroupInformation.getCurrentUser().getShortUserName());
      am.addToken(yarn.getAMRMToken(attempt.getApplicationId()));
      am.doAs((PrivilegedExceptionAction<Void>) () -> {
        amrm.init(conf);
        amrm.start();
        amrm.registerApplicationMaster("localhost", 0, "");
        return null;
      });
      // MiniYARNCluster gives each NodeManager yarn.minicluster.yarn.nodemanager.resource
      // .memory-mb (4096 by default), whatever yarn.nodemanager.resource.memory-mb says.
      long nodeMb = Long.MAX_VALUE;
      for (var node : yarn.getNodeReports()) {
        nodeMb = Math.min(nodeMb, node.getCapability().getMemorySize());
      }
      Resource executor = Resource.newInstance(nodeMb / 2, 1);
      allocator = new YarnAllocator(amrm,
          new ContainerRequestReconciler(amrm, executor, Priority.newInstance(1)),
          new ExitStatusClassifier((int) executor.getMemorySize() - 128, 128),
          new YarnAllocator.Settings(executor, MaxExecutorFailures.of(3 + refusedLaunches),
              Duration.ofHours(1), maxFailuresPerNode, Duration.ofMinutes(10), Duration.ZERO,
              Duration.ofMillis(200), Duration.ofSeconds(3), true, System::currentTimeMillis));
    }

    void start() {
      ExecutorLaunchContexts contexts = new ExecutorLaunchContexts(new Configuration(false),
          attempt.getApplicationId().toString(), "localhost", 40000, AppSecret.generate(),
          Map.of());
      allocator.start(driver, new ExecutorLauncher(contexts, (container, context) -> {
        if (launchesToRefuse.getAndDecrement() > 0) {
          throw new IOException("refused by the test on " + container.getNodeId());
        }
        return Map.of(ShuffleServiceMetadata.SERVICE_NAME,
            ShuffleServiceMetadata.encodePort(7337));
      }, launcherPool), () -> 0f);
    }

    /** Containers the RM still has to allocate for the attempt (its "outstanding requests"). */
    int outstanding() {
      int n = 0;
      for (ResourceRequest request : cluster.yarn().getResourceManager().getResourceScheduler()
          .getPendingResourceRequestsForAttempt(attempt)) {
        if (ResourceRequest.ANY.equals(request.getResourceName())) {
          n += request.getNumContainers();
        }
      }
      return n;
    }

    /** Live containers of the attempt as {@code yarn container -list} shows them. */
    int liveContainers() {
      try {
        return yarn.getContainers(attempt).size();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws Exception {
      amrm.resume();
      allocator.stop(Duration.ofSeconds(10));
      if (amrm.getServiceState() == Service.STATE.STARTED) {
        amrm.unregisterApplicationMaster(FinalApplicationStatus.SUCCEEDED, "", "");
        amrm.stop();
      }
      launcherPool.shutdownNow();
      yarn.stop();
    }
  }

  @Test
  void targetDropCancelsPendingRequestsAndKilledExecutorsAreReleased() throws Exception {
    try (AllocatorApp app = new AllocatorApp()) {
      app.start();

      // 6 wanted, room for 4: 4 executors, 2 requests left outstanding at the RM.
      app.allocator.requestTotalExecutors(6, 0, Map.of());
      await("4 executors launched", () -> app.driver.launched.size() == 4);
      await("2 requests outstanding at the RM", () -> app.outstanding() == 2);
      assertEquals(4, app.liveContainers());

      // The target drops to 2 and the driver kills 2 executors: the requests are withdrawn,
      // the 2 containers released.
      app.allocator.requestTotalExecutors(2, 0, Map.of());
      app.allocator.killExecutors(app.driver.launched.subList(0, 2));
      await("no request outstanding at the RM", () -> app.outstanding() == 0);
      await("2 containers left", () -> app.liveContainers() == 2);
      await("2 exits reported", () -> app.driver.exited.size() == 2);
      assertTrue(app.driver.exited.stream().allMatch(e -> e.contains(" ended: ")),
          app.driver.exited::toString);

      // Room for 2 more now, and nothing asks for it: more heartbeats, no container.
      int heartbeats = app.amrm.heartbeats.get();
      await("3 more heartbeats", () -> app.amrm.heartbeats.get() >= heartbeats + 3);
      assertEquals(4, app.amrm.allocated.get(), "containers YARN allocated in all");
      assertEquals(2, app.liveContainers());
      assertEquals(2, app.driver.launched.size() - app.driver.exited.size(),
          "executors running");
      assertEquals(List.of(), app.driver.aborts);
    }
  }

  @Test
  void containersNoLongerWantedWhenTheyArriveAreReleasedAtOnce() throws Exception {
    try (AllocatorApp app = new AllocatorApp()) {
      // The first heartbeat asks for 2; the AM then hears nothing until the target is 0.
      app.amrm.holdAfterNextHeartbeat();
      app.allocator.requestTotalExecutors(2, 0, Map.of());
      app.start();
      await("first heartbeat sent", app.amrm::holding);
      await("the RM allocated 2 containers", () -> app.liveContainers() == 2);
      app.allocator.requestTotalExecutors(0, 0, Map.of());
      app.amrm.resume();

      await("YARN handed the 2 containers out", () -> app.amrm.allocated.get() == 2);
      await("both released", () -> app.liveContainers() == 0);
      assertEquals(0, app.outstanding(), "requests outstanding at the RM");
      assertEquals(List.of(), app.driver.launched, "no executor started");
      int heartbeats = app.amrm.heartbeats.get();
      await("2 more heartbeats", () -> app.amrm.heartbeats.get() >= heartbeats + 2);
      assertEquals(2, app.amrm.allocated.get(), "containers YARN allocated in all");
      assertEquals(List.of(), app.driver.aborts);
    }
  }

  /**
   * Issue 17 item 6: executor failures excluded both nodes and the AM asked for a container no
   * node could take until an exclusion expired. Now the oldest exclusion is lifted and the RM
   * places the executor there.
   */
  @Test
  void whenEveryNodeIsExcludedTheOldestIsLiftedAndAnExecutorStarts() throws Exception {
    // 2 failures exclude a node; the first 4 launches fail, so both nodes get excluded.
    try (AllocatorApp app = new AllocatorApp(2, 4)) {
      app.start();
      app.allocator.requestTotalExecutors(1, 0, Map.of());

      await("an executor launched", () -> app.driver.launched.size() == 1);
      List<String> excluded = app.driver.events.stream()
          .filter(e -> e.startsWith("nodeExcluded ")).toList();
      List<String> lifted = app.driver.events.stream()
          .filter(e -> e.startsWith("nodeExclusionLifted ")).toList();
      assertEquals(2, excluded.size(), app.driver.events::toString);
      assertEquals(1, lifted.size(), app.driver.events::toString);
      String oldest = excluded.get(0).split(" ")[2];
      assertTrue(lifted.get(0).startsWith("nodeExclusionLifted node " + oldest
          + " clusterNodes 2 excludedNodes 2"), lifted::toString);
      assertEquals(List.of(), app.driver.aborts);
    }
  }

  /** Submits an unmanaged-AM application and waits for its attempt to be ready. */
  private static ApplicationAttemptId submitUnmanaged(YarnClient yarn) throws Exception {
    ApplicationSubmissionContext context =
        yarn.createApplication().getApplicationSubmissionContext();
    ApplicationId appId = context.getApplicationId();
    context.setApplicationName("allocator-flow");
    context.setUnmanagedAM(true);
    context.setAMContainerSpec(ContainerLaunchContext.newInstance(null, null, null, null, null,
        null));
    context.setResource(Resource.newInstance(128, 1));
    yarn.submitApplication(context);
    await("attempt launched", () -> {
      try {
        var report = yarn.getApplicationReport(appId);
        return report.getCurrentApplicationAttemptId() != null
            && report.getYarnApplicationState()
                == org.apache.hadoop.yarn.api.records.YarnApplicationState.ACCEPTED
            && yarn.getAMRMToken(appId) != null;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    return yarn.getApplicationReport(appId).getCurrentApplicationAttemptId();
  }

  private static void await(String what, BooleanSupplier condition) {
    Await.until(DEADLINE, what, condition::getAsBoolean);
  }
}
