package dev.tide.am.yarn;

import dev.tide.am.allocation.ContainerPlacement;
import dev.tide.am.allocation.LocalityPlacement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;

/**
 * Executor asks as container requests in the AMRM client's request table, placed by a
 * {@link ContainerPlacement} ({@code locality} by default, node lists for {@code spread} and
 * {@code pack} when the RM has no placement constraints).
 *
 * <p>Every request is for the executor resource at one priority, so the request table itself is
 * the record of what is pending: nothing is counted twice and cancelled requests disappear from
 * both. Each round first cancels requests whose hosts no longer match the hints (also when the
 * count is right), then adds what is missing with fresh placement, or on a lower target cancels
 * requests for any host before those with locality, newest first. After an allocation the
 * matched request (same node, then same rack, then any) is removed from the table, since the
 * AMRM client never does that itself (otherwise it would ask the RM again for containers it
 * already got).
 *
 * <p>Threading: not thread-safe; owned by the allocator thread, like the AMRM client's table.
 */
public final class ContainerRequestReconciler implements ExecutorRequests {
  private final AMRMClient<ContainerRequest> amrmClient;
  private final Resource executorResource;
  private final Priority priority;
  private final ContainerPlacement placement;
  private final int tasksPerExecutor;
  private final Function<String, String> rackOf;
  /** The node-label expression of every request, or null for the queue's default label. */
  private final String nodeLabelExpression;

  /** Requests for any host, no placement (tests of the counting alone). */
  public ContainerRequestReconciler(AMRMClient<ContainerRequest> amrmClient,
      Resource executorResource, Priority priority) {
    this(amrmClient, executorResource, priority, new LocalityPlacement(), 1, host -> null);
  }

  /**
   * @param tasksPerExecutor tasks one executor runs at once, for locality placement
   * @param rackOf the rack of a host, or null when unknown; called often, so it should cache
   *     (see {@link dev.tide.am.allocation.RackCache})
   */
  public ContainerRequestReconciler(AMRMClient<ContainerRequest> amrmClient,
      Resource executorResource, Priority priority, ContainerPlacement placement,
      int tasksPerExecutor, Function<String, String> rackOf) {
    this(amrmClient, executorResource, priority, placement, tasksPerExecutor, rackOf, "");
  }

  /**
   * @param nodeLabelExpression YARN node-label expression of every request
   *     ({@code tide.executor.nodeLabelExpression}); empty for the queue's default label. YARN
   *     takes no node or rack together with a label: with one, every request is for any node
   *     of the label and locality hints are not used.
   */
  public ContainerRequestReconciler(AMRMClient<ContainerRequest> amrmClient,
      Resource executorResource, Priority priority, ContainerPlacement placement,
      int tasksPerExecutor, Function<String, String> rackOf, String nodeLabelExpression) {
    this.nodeLabelExpression = nodeLabelExpression == null || nodeLabelExpression.isBlank()
        ? null : nodeLabelExpression.trim();
    this.amrmClient = amrmClient;
    this.executorResource = executorResource;
    this.priority = priority;
    this.placement = placement;
    this.tasksPerExecutor = tasksPerExecutor;
    this.rackOf = rackOf;
  }

  public Resource executorResource() {
    return executorResource;
  }

  @Override
  public int pendingRequests() {
    return allRequests().size();
  }

  /** Shorthand for tests: no hints and no containers on any host. */
  public RequestDelta reconcile(int targetExecutors, int running, int starting,
      Map<String, Integer> hostToLocalTaskCount) {
    int localityAware = 0;
    for (int n : hostToLocalTaskCount.values()) {
      localityAware = Math.max(localityAware, n);
    }
    return reconcile(new Demand(targetExecutors, running, starting, localityAware,
        hostToLocalTaskCount, Map.of()));
  }

  @Override
  public RequestDelta reconcile(Demand demand) {
    if (nodeLabelExpression != null) {
      demand = new Demand(demand.targetExecutors(), demand.running(), demand.starting(), 0,
          Map.of(), demand.containersPerHost());
    }
    int cancelled = 0;
    for (ContainerRequest request : allRequests()) {
      List<String> hosts = hostsOf(request);
      if (!hosts.isEmpty() && placement.isStale(hosts, demand.hostToLocalTaskCount())) {
        amrmClient.removeContainerRequest(request);
        cancelled++;
      }
    }
    List<ContainerRequest> pending = allRequests();
    int missing = demand.targetExecutors() - pending.size() - demand.running()
        - demand.starting();
    if (missing >= 0) {
      return place(demand, pending, missing, cancelled);
    }
    if (missing < 0) {
      int toCancel = Math.min(-missing, pending.size());
      // Any-host requests go first, then those with locality; newest first within each, since
      // the oldest are the likeliest to be satisfied soon.
      List<ContainerRequest> victims = new ArrayList<>(toCancel);
      for (boolean anyHost : new boolean[] {true, false}) {
        for (int i = pending.size() - 1; i >= 0 && victims.size() < toCancel; i--) {
          ContainerRequest request = pending.get(i);
          if (hostsOf(request).isEmpty() == anyHost) {
            victims.add(request);
          }
        }
      }
      for (ContainerRequest request : victims) {
        amrmClient.removeContainerRequest(request);
      }
      cancelled += victims.size();
    }
    return new RequestDelta(0, cancelled);
  }

  /**
   * Places the missing requests together with the pending any-host ones, so that hints that
   * arrive after any-host requests were made (the driver's first target often comes before its
   * first stage) still get local requests: where placement now wants L local and A any-host
   * requests and H any-host requests are pending, it adds the L local ones and
   * {@code A - H} any-host ones, or cancels {@code H - A} any-host ones.
   */
  private RequestDelta place(Demand demand, List<ContainerRequest> pending, int missing,
      int cancelled) {
    List<ContainerRequest> anyHost = new ArrayList<>();
    Map<String, Integer> perHost = new HashMap<>(demand.containersPerHost());
    for (ContainerRequest request : pending) {
      List<String> hosts = hostsOf(request);
      if (hosts.isEmpty()) {
        anyHost.add(request);
      }
      for (String host : hosts) {
        perHost.merge(host, 1, Integer::sum);
      }
    }
    int toPlace = missing + anyHost.size();
    if (toPlace == 0) {
      return new RequestDelta(0, cancelled);
    }
    List<List<String>> placed = placement.place(new ContainerPlacement.Input(toPlace,
        demand.targetExecutors(), tasksPerExecutor, demand.localityAwareTasks(),
        demand.hostToLocalTaskCount(), perHost));
    List<List<String>> local = new ArrayList<>();
    Set<String> localHosts = new HashSet<>();
    for (List<String> hosts : placed) {
      if (!hosts.isEmpty()) {
        local.add(hosts);
        localHosts.addAll(hosts);
      }
    }
    int anyWanted = placed.size() - local.size();
    int surplusAnyHost = anyHost.size() - anyWanted;
    for (int i = 0; i < surplusAnyHost; i++) {
      // Newest first: the oldest are the likeliest to be satisfied soon.
      amrmClient.removeContainerRequest(anyHost.get(anyHost.size() - 1 - i));
      cancelled++;
    }
    for (List<String> hosts : local) {
      amrmClient.addContainerRequest(request(hosts));
    }
    for (int i = 0; i < -surplusAnyHost; i++) {
      amrmClient.addContainerRequest(request(List.of()));
    }
    int requested = local.size() + Math.max(0, -surplusAnyHost);
    return new RequestDelta(requested, cancelled, local.size(), localHosts.size());
  }

  private ContainerRequest request(List<String> hosts) {
    if (nodeLabelExpression != null || hosts.isEmpty()) {
      return new ContainerRequest(executorResource, null, null, priority, true,
          nodeLabelExpression);
    }
    Set<String> racks = new LinkedHashSet<>();
    for (String host : hosts) {
      String rack = rackOf.apply(host);
      if (rack != null) {
        racks.add(rack);
      }
    }
    return new ContainerRequest(executorResource, hosts.toArray(new String[0]),
        racks.isEmpty() ? null : racks.toArray(new String[0]), priority, true);
  }

  @Override
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
   * Removes the one request the container satisfies best: one naming its node (by node name or
   * host), else one naming its rack, else one for any host, else any request at all (a request
   * for other hosts the RM relaxed). Returns false when none is left (for example already
   * cancelled).
   */
  boolean removeMatchingRequest(Container container) {
    NodeId node = container.getNodeId();
    String rack = rackOf.apply(node.getHost());
    List<String> locations = new ArrayList<>(List.of(node.toString(), node.getHost()));
    if (rack != null) {
      locations.add(rack);
    }
    for (String location : locations) {
      for (Collection<ContainerRequest> requests :
          amrmClient.getMatchingRequests(priority, location, container.getResource())) {
        for (ContainerRequest request : requests) {
          amrmClient.removeContainerRequest(request);
          return true;
        }
      }
    }
    ContainerRequest fallback = null;
    for (Collection<ContainerRequest> requests : amrmClient.getMatchingRequests(priority,
        ResourceRequest.ANY, container.getResource())) {
      for (ContainerRequest request : requests) {
        if (hostsOf(request).isEmpty()) {
          amrmClient.removeContainerRequest(request);
          return true;
        }
        if (fallback == null) {
          fallback = request;
        }
      }
    }
    if (fallback != null) {
      amrmClient.removeContainerRequest(fallback);
      return true;
    }
    return false;
  }

  private List<ContainerRequest> allRequests() {
    List<ContainerRequest> all = new ArrayList<>();
    for (Collection<ContainerRequest> requests :
        amrmClient.getMatchingRequests(priority, ResourceRequest.ANY, executorResource)) {
      all.addAll(requests);
    }
    return all;
  }

  private static List<String> hostsOf(ContainerRequest request) {
    List<String> nodes = request.getNodes();
    return nodes == null ? List.of() : nodes;
  }
}
