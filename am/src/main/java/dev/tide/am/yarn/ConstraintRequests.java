package dev.tide.am.yarn;

import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.NODE;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.allocationTag;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetIn;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetNotIn;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
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
 * {@code scheduler} or {@code placement-processor}). Every executor container carries the
 * allocation tag {@value #ALLOCATION_TAG}.
 *
 * <ul>
 *   <li>{@code spread}: one scheduling request, node anti-affinity to the tag (never two
 *       executors of this application on one node), for all executors still wanted.</li>
 *   <li>{@code pack}: a scheduling request with node affinity to the tag (only on nodes that
 *       already hold an executor). Affinity alone could never place the first executor, and
 *       it waits forever once those nodes are full, so a second request of one container
 *       under anti-affinity (a <em>seed</em>) opens a new node: when no executor exists, and
 *       again whenever affine requests have waited {@code seedAfter} with nothing
 *       allocated.</li>
 * </ul>
 *
 * <p>A count is changed by sending its request again with the same allocation request id (the
 * AMRM client and the RM replace the old one). Allocated containers carry that id; each one
 * lowers its count, launched or not. On a lower target the constrained request shrinks first,
 * then the seed. Locality hints are ignored.
 *
 * <p>Threading: not thread-safe; owned by the allocator thread.
 */
public final class ConstraintRequests implements ExecutorRequests {
  /** The allocation tag on every executor container. */
  public static final String ALLOCATION_TAG = "tide-executor";
  /** The constrained request; distinct from the id 0 that container requests use. */
  static final long ALLOCATION_REQUEST_ID = 1L;
  /** The unconstrained seed request of {@code pack}. */
  static final long SEED_REQUEST_ID = 2L;

  /** Which constraint to place executors under. */
  public enum Kind { SPREAD, PACK }

  private final AMRMClient<?> amrmClient;
  private final Resource executorResource;
  private final Priority priority;
  private final Kind kind;
  private final PlacementConstraint constraint;
  private final PlacementConstraint seedConstraint =
      PlacementConstraints.build(targetNotIn(NODE, allocationTag(ALLOCATION_TAG)));
  private final long seedAfterMillis;
  private final LongSupplier clockMillis;
  private int pending;
  private int pendingSeed;
  /** When the constrained request last got a container or went from 0 to pending. */
  private long lastProgressMillis;

  /** Spread, or pack that seeds a new node after 5 s without progress. */
  public ConstraintRequests(AMRMClient<?> amrmClient, Resource executorResource,
      Priority priority, Kind kind) {
    this(amrmClient, executorResource, priority, kind, Duration.ofSeconds(5),
        System::currentTimeMillis);
  }

  /**
   * @param seedAfter for {@code pack}: how long affine requests may wait with nothing allocated
   *     before a seed opens another node
   */
  public ConstraintRequests(AMRMClient<?> amrmClient, Resource executorResource,
      Priority priority, Kind kind, Duration seedAfter, LongSupplier clockMillis) {
    this.amrmClient = amrmClient;
    this.executorResource = executorResource;
    this.priority = priority;
    this.kind = kind;
    this.constraint = PlacementConstraints.build(kind == Kind.SPREAD
        ? targetNotIn(NODE, allocationTag(ALLOCATION_TAG))
        : targetIn(NODE, allocationTag(ALLOCATION_TAG)));
    this.seedAfterMillis = seedAfter.toMillis();
    this.clockMillis = clockMillis;
  }

  @Override
  public int pendingRequests() {
    return pending + pendingSeed;
  }

  @Override
  public RequestDelta reconcile(Demand demand) {
    long now = clockMillis.getAsLong();
    int missing = demand.targetExecutors() - pendingRequests() - demand.running()
        - demand.starting();
    int seedBefore = pendingSeed;
    int before = pending;
    if (missing > 0) {
      if (before == 0) {
        lastProgressMillis = now;
      }
      pending += missing;
    } else if (missing < 0) {
      int fromConstrained = Math.min(pending, -missing);
      pending -= fromConstrained;
      pendingSeed -= Math.min(pendingSeed, -missing - fromConstrained);
    }
    if (kind == Kind.PACK && pendingSeed == 0 && pending > 0) {
      boolean noExecutor = demand.running() + demand.starting() == 0;
      boolean stuck = now - lastProgressMillis >= seedAfterMillis;
      if (noExecutor || stuck) {
        pending--;
        pendingSeed = 1;
        lastProgressMillis = now;
      }
    }
    List<SchedulingRequest> changed = new ArrayList<>(2);
    if (pending != before) {
      changed.add(request(ALLOCATION_REQUEST_ID, pending, constraint));
    }
    if (pendingSeed != seedBefore) {
      changed.add(request(SEED_REQUEST_ID, pendingSeed, seedConstraint));
    }
    if (!changed.isEmpty()) {
      amrmClient.addSchedulingRequests(changed);
    }
    int delta = pending + pendingSeed - before - seedBefore;
    return delta >= 0 ? new RequestDelta(delta, 0) : new RequestDelta(0, -delta);
  }

  SchedulingRequest request(long id, int numAllocations, PlacementConstraint placement) {
    return SchedulingRequest.newBuilder()
        .allocationRequestId(id)
        .priority(priority)
        .executionType(ExecutionTypeRequest.newInstance(ExecutionType.GUARANTEED, true))
        .allocationTags(Set.of(ALLOCATION_TAG))
        .resourceSizing(ResourceSizing.newInstance(numAllocations, executorResource))
        .placementConstraintExpression(placement)
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
        lastProgressMillis = clockMillis.getAsLong();
      } else if (container.getAllocationRequestId() == SEED_REQUEST_ID && pendingSeed > 0) {
        pendingSeed--;
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
