package dev.tide.it;

import dev.tide.testing.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationAttemptState;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * The test process acting as an application's ApplicationMaster: an unmanaged AM (no AM
 * container) registered with the ResourceManager through its AMRM token, which asks for
 * containers and starts them with {@link NMClient}, as Tide's AM starts executors. The
 * application stays RUNNING until {@link #finish()}, so the NodeManagers keep it.
 *
 * <p>Not thread-safe: one test thread drives it. Every wait polls the RM with a deadline.
 */
final class UnmanagedApplicationMaster implements AutoCloseable {

  /** A started container and the aux-service metadata its NodeManager answered with. */
  record StartedContainer(Container container, Map<String, ByteBuffer> serviceMetadata) {}

  private final YarnClient yarn;
  private final ApplicationId appId;
  private final AMRMClient<ContainerRequest> amrm;
  private final NMClient nm;
  private boolean finished;

  private UnmanagedApplicationMaster(YarnClient yarn, ApplicationId appId,
      AMRMClient<ContainerRequest> amrm, NMClient nm) {
    this.yarn = yarn;
    this.appId = appId;
    this.amrm = amrm;
    this.nm = nm;
  }

  /** Submits an application with an unmanaged AM and registers this process as its AM. */
  static UnmanagedApplicationMaster submit(Configuration conf, String name, Duration timeout)
      throws Exception {
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
    try {
      ApplicationSubmissionContext app = yarn.createApplication()
          .getApplicationSubmissionContext();
      app.setApplicationName(name);
      app.setUnmanagedAM(true);
      app.setAMContainerSpec(ContainerLaunchContext.newInstance(null, null, null, null, null,
          null));
      app.setResource(Resource.newInstance(128, 1));
      ApplicationId appId = yarn.submitApplication(app);
      ApplicationAttemptId attempt = awaitLaunchedAttempt(yarn, appId, timeout);

      // The RM authorizes AM calls by the AMRM token of the connection's user.
      UserGroupInformation amUser = UserGroupInformation.createRemoteUser(attempt.toString());
      amUser.addToken(yarn.getAMRMToken(appId));
      AMRMClient<ContainerRequest> amrm = amUser.doAs(
          (PrivilegedExceptionAction<AMRMClient<ContainerRequest>>) () -> {
            AMRMClient<ContainerRequest> client = AMRMClient.createAMRMClient();
            client.init(conf);
            client.start();
            client.registerApplicationMaster("", 0, "");
            return client;
          });
      NMClient nm = NMClient.createNMClient();
      nm.init(conf);
      nm.start();
      // Containers are left to finish on their own; the test owns the NodeManagers.
      nm.cleanupRunningContainersOnStop(false);
      return new UnmanagedApplicationMaster(yarn, appId, amrm, nm);
    } catch (Exception | Error e) {
      yarn.stop();
      throw e;
    }
  }

  private static ApplicationAttemptId awaitLaunchedAttempt(YarnClient yarn, ApplicationId appId,
      Duration timeout) throws Exception {
    return Await.value(timeout, appId + " attempt LAUNCHED", () -> {
      ApplicationAttemptId attempt = yarn.getApplicationReport(appId)
          .getCurrentApplicationAttemptId();
      return attempt != null && yarn.getApplicationAttemptReport(attempt)
          .getYarnApplicationAttemptState() == YarnApplicationAttemptState.LAUNCHED
          ? attempt : null;
    });
  }

  ApplicationId appId() {
    return appId;
  }

  /** Asks for one container anywhere, starts it with {@code launchContext} and returns it. */
  StartedContainer startContainer(ContainerLaunchContext launchContext, Duration timeout)
      throws Exception {
    ContainerRequest request = new ContainerRequest(Resource.newInstance(128, 1), null, null,
        Priority.newInstance(1));
    amrm.addContainerRequest(request);
    // Each check is a heartbeat.
    List<Container> allocated = Await.value(timeout, appId + " container allocation", () -> {
      List<Container> containers = amrm.allocate(0f).getAllocatedContainers();
      return containers.isEmpty() ? null : containers;
    });
    amrm.removeContainerRequest(request);
    Container container = allocated.get(0);
    for (Container surplus : allocated.subList(1, allocated.size())) {
      amrm.releaseAssignedContainer(surplus.getId());
    }
    return new StartedContainer(container, nm.startContainer(container, launchContext));
  }

  /** Heartbeats until the RM reports the container completed; returns its final status. */
  ContainerStatus awaitCompleted(ContainerId container, Duration timeout) throws Exception {
    return Await.value(timeout, container + " completed", () -> {
      for (ContainerStatus status : amrm.allocate(0f).getCompletedContainersStatuses()) {
        if (status.getContainerId().equals(container)) {
          return status;
        }
      }
      return null;
    });
  }

  /** Unregisters (SUCCEEDED) and waits until the RM reports the application FINISHED. */
  void finish(Duration timeout) throws Exception {
    amrm.unregisterApplicationMaster(FinalApplicationStatus.SUCCEEDED, "", "");
    finished = true;
    Await.until(timeout, appId + " FINISHED", () -> yarn.getApplicationReport(appId)
        .getYarnApplicationState() == YarnApplicationState.FINISHED);
  }

  @Override
  public void close() throws IOException {
    try {
      if (!finished) {
        yarn.killApplication(appId);
      }
    } catch (Exception e) {
      throw new IOException("cannot kill " + appId, e);
    } finally {
      nm.stop();
      amrm.stop();
      yarn.stop();
    }
  }

}
