package dev.tide.queue;

import java.util.List;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException;

/**
 * The test AMs' heartbeat. A call that fails (the RM restarting interrupts the calls it is
 * serving: they fail with {@code YarnRuntimeException: InterruptedException}) is reported on
 * stderr and answered with no containers, and the AM heartbeats again, as Tide's own AM does
 * ({@code ResourceManagerHeartbeat}); before, one such call ended the test AM, which unregistered
 * while the RM recovered it. An RM that no longer knows the attempt still ends it.
 */
final class AmHeartbeat {
  private AmHeartbeat() {}

  static List<Container> allocate(AMRMClient<ContainerRequest> client, float progress)
      throws ApplicationAttemptNotFoundException {
    try {
      return client.allocate(progress).getAllocatedContainers();
    } catch (ApplicationAttemptNotFoundException e) {
      throw e;
    } catch (Exception e) {
      System.err.println("heartbeat failed, retrying: " + e);
      return List.of();
    }
  }
}
