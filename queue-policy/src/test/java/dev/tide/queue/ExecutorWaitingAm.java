package dev.tide.queue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A stand-in driver for the burst tests: registers, asks for {@code executors} containers, waits
 * until it holds all of them, keeps them for {@code holdMillis}, then unregisters (the RM reclaims
 * the containers). It never launches anything in the executor containers: holding the allocation
 * is all the queue sees. With {@code executors = 0} it only holds its AM for {@code holdMillis}.
 * If it does not get all executors within {@code giveUpMillis} it unregisters as FAILED.
 *
 * <p>It writes one line, {@code registered firstExecutor allExecutors finished status} in epoch
 * milliseconds, to {@code <resultDir>/<applicationId>.txt}; the test reads it after the
 * application finished.
 *
 * <p>Arguments: {@code executors executorMb holdMillis giveUpMillis resultDir}.
 */
public final class ExecutorWaitingAm {

  private static final long HEARTBEAT_MILLIS = 100;

  private ExecutorWaitingAm() {}

  public static void main(String[] args) throws Exception {
    int executors = Integer.parseInt(args[0]);
    int executorMb = Integer.parseInt(args[1]);
    long holdMillis = Long.parseLong(args[2]);
    long giveUpMillis = Long.parseLong(args[3]);
    Path resultDir = Path.of(args[4]);
    String appId = ContainerId.fromString(System.getenv(ApplicationConstants.Environment
        .CONTAINER_ID.name())).getApplicationAttemptId().getApplicationId().toString();

    AMRMClient<ContainerRequest> client = AMRMClient.createAMRMClient();
    client.init(new YarnConfiguration());
    client.start();
    client.registerApplicationMaster("", 0, "");
    long registered = System.currentTimeMillis();
    long firstExecutor = -1;
    long allExecutors = -1;
    FinalApplicationStatus status = FinalApplicationStatus.SUCCEEDED;
    try {
      Resource size = Resource.newInstance(executorMb, 1);
      Priority priority = Priority.newInstance(1);
      for (int i = 0; i < executors; i++) {
        client.addContainerRequest(new ContainerRequest(size, null, null, priority));
      }
      List<Container> held = new ArrayList<>();
      long deadline = registered + giveUpMillis;
      while (held.size() < executors) {
        if (System.currentTimeMillis() > deadline) {
          status = FinalApplicationStatus.FAILED;
          break;
        }
        for (Container container : AmHeartbeat.allocate(client, 0.1f)) {
          if (held.size() < executors) {
            held.add(container);
            // Matched: take the request out of the table so the RM does not hand out more.
            client.removeContainerRequest(new ContainerRequest(size, null, null, priority));
          } else {
            client.releaseAssignedContainer(container.getId());
          }
        }
        if (!held.isEmpty() && firstExecutor < 0) {
          firstExecutor = System.currentTimeMillis();
        }
        if (held.size() < executors) {
          Thread.sleep(HEARTBEAT_MILLIS); // the AM's heartbeat period, not a synchronization
        }
      }
      if (status == FinalApplicationStatus.SUCCEEDED) {
        allExecutors = System.currentTimeMillis();
        long holdUntil = allExecutors + holdMillis;
        while (System.currentTimeMillis() < holdUntil) {
          AmHeartbeat.allocate(client, 0.5f);
          Thread.sleep(HEARTBEAT_MILLIS);
        }
      }
    } finally {
      long finished = System.currentTimeMillis();
      writeResult(resultDir, appId,
          registered + " " + firstExecutor + " " + allExecutors + " " + finished + " " + status);
      client.unregisterApplicationMaster(status, "", "");
      client.stop();
    }
  }

  private static void writeResult(Path dir, String appId, String line) throws IOException {
    Path tmp = dir.resolve(appId + ".tmp");
    Files.writeString(tmp, line + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, dir.resolve(appId + ".txt"), StandardCopyOption.ATOMIC_MOVE);
  }
}
