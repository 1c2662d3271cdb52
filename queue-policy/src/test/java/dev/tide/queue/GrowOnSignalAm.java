package dev.tide.queue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A stand-in driver that asks for more executors when the test tells it to, for the
 * ResourceManager restart test: it registers, asks for {@code initial} executors and waits until
 * it holds them, then waits for the file {@code <resultDir>/<applicationId>.grow}, asks for
 * {@code extra} more executors, waits until it holds those too, keeps everything for
 * {@code holdMillis} and unregisters. Unlike {@link ExecutorWaitingAm} it starts each executor
 * container (a {@code sleep}, stopped when the application finishes): a restarted RM learns of
 * containers only from the NodeManagers, which report the started ones; an allocated container
 * that was never started is forgotten. Its AMRMClient re-registers by itself when a restarted
 * ResourceManager does not know the attempt yet, and resends its outstanding requests.
 *
 * <p>Files it writes to {@code resultDir} (epoch milliseconds, written atomically):
 * {@code <applicationId>.held} once it holds the initial executors, {@code <applicationId>.grown}
 * once it holds the extra ones, and {@code <applicationId>.txt},
 * {@code registered initialHeld grown finished status}, before it unregisters. If a phase does
 * not complete within {@code giveUpMillis} it unregisters as FAILED.
 *
 * <p>Arguments: {@code initial extra executorMb holdMillis giveUpMillis resultDir}.
 */
public final class GrowOnSignalAm {

  private static final long HEARTBEAT_MILLIS = 100;

  private final AMRMClient<ContainerRequest> client;
  private final NMClient nodeManagers;
  private final Resource size;
  private final Priority priority = Priority.newInstance(1);
  private final List<Container> held = new ArrayList<>();

  private GrowOnSignalAm(AMRMClient<ContainerRequest> client, NMClient nodeManagers,
      int executorMb) {
    this.client = client;
    this.nodeManagers = nodeManagers;
    this.size = Resource.newInstance(executorMb, 1);
  }

  public static void main(String[] args) throws Exception {
    int initial = Integer.parseInt(args[0]);
    int extra = Integer.parseInt(args[1]);
    int executorMb = Integer.parseInt(args[2]);
    long holdMillis = Long.parseLong(args[3]);
    long giveUpMillis = Long.parseLong(args[4]);
    Path resultDir = Path.of(args[5]);
    String appId = ContainerId.fromString(System.getenv(ApplicationConstants.Environment
        .CONTAINER_ID.name())).getApplicationAttemptId().getApplicationId().toString();

    AMRMClient<ContainerRequest> client = AMRMClient.createAMRMClient();
    client.init(new YarnConfiguration());
    client.start();
    NMClient nodeManagers = NMClient.createNMClient();
    nodeManagers.init(new YarnConfiguration());
    nodeManagers.start();
    client.registerApplicationMaster("", 0, "");
    long registered = System.currentTimeMillis();
    long initialHeld = -1;
    long grown = -1;
    FinalApplicationStatus status = FinalApplicationStatus.FAILED;
    GrowOnSignalAm am = new GrowOnSignalAm(client, nodeManagers, executorMb);
    try {
      if (am.acquire(initial, registered + giveUpMillis)) {
        initialHeld = System.currentTimeMillis();
        writeAtomically(resultDir.resolve(appId + ".held"), Long.toString(initialHeld));
        Path signal = resultDir.resolve(appId + ".grow");
        long signalDeadline = System.currentTimeMillis() + giveUpMillis;
        while (!Files.exists(signal) && System.currentTimeMillis() < signalDeadline) {
          AmHeartbeat.allocate(client, 0.5f);
          Thread.sleep(HEARTBEAT_MILLIS); // the AM's heartbeat period, not a synchronization
        }
        if (Files.exists(signal)
            && am.acquire(initial + extra, System.currentTimeMillis() + giveUpMillis)) {
          grown = System.currentTimeMillis();
          writeAtomically(resultDir.resolve(appId + ".grown"), Long.toString(grown));
          long holdUntil = grown + holdMillis;
          while (System.currentTimeMillis() < holdUntil) {
            AmHeartbeat.allocate(client, 0.9f);
            Thread.sleep(HEARTBEAT_MILLIS);
          }
          status = FinalApplicationStatus.SUCCEEDED;
        }
      }
    } finally {
      long finished = System.currentTimeMillis();
      writeAtomically(resultDir.resolve(appId + ".txt"),
          registered + " " + initialHeld + " " + grown + " " + finished + " " + status);
      client.unregisterApplicationMaster(status, "", "");
      nodeManagers.stop();
      client.stop();
    }
  }

  /** Asks for executors until {@code target} are held; false if the deadline passed first. */
  private boolean acquire(int target, long deadlineMillis) throws Exception {
    for (int i = held.size(); i < target; i++) {
      client.addContainerRequest(new ContainerRequest(size, null, null, priority));
    }
    while (held.size() < target) {
      if (System.currentTimeMillis() > deadlineMillis) {
        return false;
      }
      for (Container container : AmHeartbeat.allocate(client, 0.1f)) {
        if (held.size() < target) {
          held.add(container);
          nodeManagers.startContainer(container, ContainerLaunchContext.newInstance(
              Map.of(), Map.of(), List.of("sleep 600"), null, null, null));
          // Matched: take the request out of the table so the RM does not hand out more.
          client.removeContainerRequest(new ContainerRequest(size, null, null, priority));
        } else {
          client.releaseAssignedContainer(container.getId());
        }
      }
      if (held.size() < target) {
        Thread.sleep(HEARTBEAT_MILLIS); // the AM's heartbeat period, not a synchronization
      }
    }
    return true;
  }

  private static void writeAtomically(Path file, String line) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, line + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
  }
}
