package dev.tide.bench.allocator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.UpdateContainerRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;

/**
 * An AMRM client whose "request table" is a plain insertion-ordered set of the requests, with
 * none of {@code AMRMClientImpl}'s bookkeeping (rack resolution of every host, the
 * per-location {@code RemoteRequestsTable}, the {@code ask} set): what a round costs Tide itself
 * (placement and reconcile) is measured against it. Only what the reconciler calls works.
 */
final class PlainRequestList extends AMRMClient<ContainerRequest> {
  private final Set<ContainerRequest> requests = new LinkedHashSet<>();

  PlainRequestList() {
    super(PlainRequestList.class.getName());
  }

  @Override
  public void addContainerRequest(ContainerRequest request) {
    requests.add(request);
  }

  @Override
  public void removeContainerRequest(ContainerRequest request) {
    requests.remove(request);
  }

  @Override
  public List<? extends Collection<ContainerRequest>> getMatchingRequests(Priority priority,
      String resourceName, Resource capability) {
    if (ResourceRequest.ANY.equals(resourceName)) {
      return List.of(new ArrayList<>(requests));
    }
    List<ContainerRequest> matching = new ArrayList<>();
    for (ContainerRequest request : requests) {
      if ((request.getNodes() != null && request.getNodes().contains(resourceName))
          || (request.getRacks() != null && request.getRacks().contains(resourceName))) {
        matching.add(request);
      }
    }
    return List.of(matching);
  }

  @Override
  public Collection<ContainerRequest> getMatchingRequests(long allocationRequestId) {
    return List.copyOf(requests);
  }

  @Override
  public RegisterApplicationMasterResponse registerApplicationMaster(String host, int port,
      String trackingUrl) {
    throw new UnsupportedOperationException("bench only");
  }

  @Override
  public AllocateResponse allocate(float progress) {
    throw new UnsupportedOperationException("bench only");
  }

  @Override
  public void unregisterApplicationMaster(FinalApplicationStatus status, String message,
      String trackingUrl) {
    throw new UnsupportedOperationException("bench only");
  }

  @Override
  public void requestContainerUpdate(Container container, UpdateContainerRequest request) {
    throw new UnsupportedOperationException("bench only");
  }

  @Override
  public void releaseAssignedContainer(ContainerId containerId) {
    throw new UnsupportedOperationException("bench only");
  }

  @Override
  public Resource getAvailableResources() {
    return null;
  }

  @Override
  public int getClusterNodeCount() {
    return 0;
  }

  @Override
  public void updateBlacklist(List<String> additions, List<String> removals) {}
}
