package dev.tide.am;

import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.NODE;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.allocationTag;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetIn;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetNotIn;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.ExecutionTypeRequest;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceSizing;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraints;
import org.apache.hadoop.yarn.client.api.AMRMClient;

/**
 * Executor asks for placements {@code spread} and {@code pack} on a ResourceManager with
 * placement constraints ({@code yarn.resourcemanager.placement-constraints.handler} set to
 * {@code scheduler} or {@code placement-processor}): one {@link SchedulingRequest} whose count is
 * the number of executors still wanted, every container tagged {@value #ALLOCATION_TAG}, under
 * node anti-affinity ({@code spread}: never two executors of this application on one node) or
 * affinity ({@code pack}: on nodes that already hold one).
 *
 * <p>The count is changed by sending the request again with the same allocation request id
 * (the AMRM client and the RM replace the old one). Allocated containers carry that id; each one
 * lowers the count, launched or not. Locality hints are ignored.
 *
 * <p>Threading: not thread-safe; owned by the allocator thread.
 */
public final class ConstraintRequests implements ExecutorRequests {
  /** The allocation tag on every executor container. */
  public static final String ALLOCATION_TAG = "tide-executor";
  /** Distinct from the id 0 that container requests use. */
  static final long ALLOCATION_REQUEST_ID = 1L;

  /** Which constraint to place executors under. */
  public enum Kind { SPREAD, PACK }

  private final AMRMClient<?> amrmClient;
  private final Resource executorResource;
  private final Priority priority;
  private final PlacementConstraint constraint;
  private int pending;

  public ConstraintRequests(AMRMClient<?> amrmClient, Resource executorResource,
      Priority priority, Kind kind) {
    this.amrmClient = amrmClient;
    this.executorResource = executorResource;
    this.priority = priority;
    this.constraint = PlacementConstraints.build(kind == Kind.SPREAD
        ? targetNotIn(NODE, allocationTag(ALLOCATION_TAG))
        : targetIn(NODE, allocationTag(ALLOCATION_TAG)));
  }

  @Override
  public int pendingRequests() {
    return pending;
  }

  @Override
  public RequestDelta reconcile(Demand demand) {
    int missing = demand.targetExecutors() - pending - demand.running() - demand.starting();
    if (missing == 0 || (missing < 0 && pending == 0)) {
      return new RequestDelta(0, 0);
    }
    int before = pending;
    pending = Math.max(0, pending + missing);
    amrmClient.addSchedulingRequests(List.of(request(pending)));
    return pending > before ? new RequestDelta(pending - before, 0)
        : new RequestDelta(0, before - pending);
  }

  SchedulingRequest request(int numAllocations) {
    return SchedulingRequest.newBuilder()
        .allocationRequestId(ALLOCATION_REQUEST_ID)
        .priority(priority)
        .executionType(ExecutionTypeRequest.newInstance(ExecutionType.GUARANTEED, true))
        .allocationTags(Set.of(ALLOCATION_TAG))
        .resourceSizing(ResourceSizing.newInstance(numAllocations, executorResource))
        .placementConstraintExpression(constraint)
        .build();
  }

  @Override
  public Assignment assign(List<Container> allocated, int targetExecutors,
      int runningAndStarting) {
    List<Container> toLaunch = new ArrayList<>();
    List<Container> surplus = new ArrayList<>();
    int wanted = targetExecutors - runningAndStarting;
    for (Container container : allocated) {
      if (container.getAllocationRequestId() == ALLOCATION_REQUEST_ID && pending > 0) {
        pending--;
      }
      if (toLaunch.size() < wanted) {
        toLaunch.add(container);
      } else {
        surplus.add(container);
      }
    }
    return new Assignment(toLaunch, surplus);
  }
}
