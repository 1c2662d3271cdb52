package dev.tide.am;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;

/**
 * The reconcile step of the allocator: compares the declared target with what exists (pending
 * requests in the AMRM client's request table, running and starting executors) and issues the
 * difference, and splits each batch of allocated containers into those to launch and the surplus
 * to release.
 *
 * <p>Every request this class adds is for the executor resource at one priority, so the request
 * table itself is the record of what is pending: nothing is counted twice and cancelled requests
 * disappear from both. After an allocation the matched request is removed from the table, since
 * the AMRM client never does that itself (otherwise it would ask the RM again for containers it
 * already got).
 *
 * <p>Threading: not thread-safe; owned by the allocator thread, like the AMRM client's table.
 */
public final class ContainerRequestReconciler {
  /** What one reconcile step changed. */
  public record RequestDelta(int requested, int cancelled) {
    public boolean changed() {
      return requested > 0 || cancelled > 0;
    }
  }

  /** Allocated containers split into those to launch and those to release at once. */
  public record Assignment(List<Container> toLaunch, List<Container> surplus) {}

  private final AMRMClient<ContainerRequest> amrmClient;
  private final Resource executorResource;
  private final Priority priority;

  public ContainerRequestReconciler(AMRMClient<ContainerRequest> amrmClient,
      Resource executorResource, Priority priority) {
    this.amrmClient = amrmClient;
    this.executorResource = executorResource;
    this.priority = priority;
  }

  public Resource executorResource() {
    return executorResource;
  }

  /** Outstanding container requests (added, not yet matched or cancelled). */
  public int pendingRequests() {
    int pending = 0;
    for (Collection<ContainerRequest> requests : matching(ResourceRequest.ANY, executorResource)) {
      pending += requests.size();
    }
    return pending;
  }

  /**
   * Adds or cancels requests so that {@code pending + running + starting == target}.
   *
   * @param hostToLocalTaskCount locality hints; kept for placement, not used for requests yet
   */
  public RequestDelta reconcile(int targetExecutors, int running, int starting,
      Map<String, Integer> hostToLocalTaskCount) {
    int pending = pendingRequests();
    int missing = targetExecutors - pending - running - starting;
    if (missing > 0) {
      for (int i = 0; i < missing; i++) {
        amrmClient.addContainerRequest(
            new ContainerRequest(executorResource, null, null, priority, true));
      }
      return new RequestDelta(missing, 0);
    }
    if (missing < 0) {
      int toCancel = Math.min(-missing, pending);
      List<ContainerRequest> victims = new ArrayList<>(toCancel);
      // Newest first: the oldest requests are the likeliest to be satisfied soon.
      List<ContainerRequest> all = new ArrayList<>();
      for (Collection<ContainerRequest> requests :
          matching(ResourceRequest.ANY, executorResource)) {
        all.addAll(requests);
      }
      for (int i = all.size() - 1; i >= 0 && victims.size() < toCancel; i--) {
        victims.add(all.get(i));
      }
      for (ContainerRequest request : victims) {
        amrmClient.removeContainerRequest(request);
      }
      return new RequestDelta(0, victims.size());
    }
    return new RequestDelta(0, 0);
  }

  /**
   * Decides the fate of freshly allocated containers: while executors are still wanted
   * ({@code running + starting < target}) a container is kept and one matching request removed
   * from the table; the rest are surplus (the RM can hand out more than is still wanted because
   * it learns of cancellations only on the next heartbeat).
   *
   * @param runningAndStarting executors that exist or are being launched, before this batch
   */
  public Assignment assign(List<Container> allocated, int targetExecutors,
      int runningAndStarting) {
    List<Container> toLaunch = new ArrayList<>();
    List<Container> surplus = new ArrayList<>();
    int wanted = targetExecutors - runningAndStarting;
    for (Container container : allocated) {
      if (toLaunch.size() < wanted) {
        toLaunch.add(container);
        removeMatchingRequest(container);
      } else {
        surplus.add(container);
      }
    }
    return new Assignment(toLaunch, surplus);
  }

  /**
   * Removes one request the container satisfies: one naming its host if any, else any request
   * that fits its resource. Returns false when none is left (for example already cancelled).
   */
  boolean removeMatchingRequest(Container container) {
    String host = container.getNodeId().getHost();
    for (String location : new String[] {host, ResourceRequest.ANY}) {
      for (Collection<ContainerRequest> requests : matching(location, container.getResource())) {
        Iterator<ContainerRequest> it = requests.iterator();
        if (it.hasNext()) {
          amrmClient.removeContainerRequest(it.next());
          return true;
        }
      }
    }
    return false;
  }

  private List<? extends Collection<ContainerRequest>> matching(String location,
      Resource resource) {
    return amrmClient.getMatchingRequests(priority, location, resource);
  }
}
