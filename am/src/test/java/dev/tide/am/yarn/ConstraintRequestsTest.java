package dev.tide.am.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.yarn.ExecutorRequests.Demand;
import dev.tide.am.yarn.ExecutorRequests.RequestDelta;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.impl.AMRMClientImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scheduling request of spread and pack, with an unstarted AMRM client. */
class ConstraintRequestsTest {
  private static final Resource EXECUTOR = Resource.newInstance(768, 1);

  /** Records the scheduling requests the allocator sends. */
  static final class RecordingClient extends AMRMClientImpl<ContainerRequest> {
    SchedulingRequest last;
    SchedulingRequest lastSeed;

    @Override
    public synchronized void addSchedulingRequests(
        java.util.Collection<SchedulingRequest> requests) {
      super.addSchedulingRequests(requests);
      for (SchedulingRequest request : requests) {
        if (request.getAllocationRequestId() == ConstraintRequests.SEED_REQUEST_ID) {
          lastSeed = request;
        } else {
          last = request;
        }
      }
    }
  }

  private final RecordingClient amrm = new RecordingClient();
  private final TestContainers containers = TestContainers.create();
  private final AtomicLong clock = new AtomicLong(0);

  @AfterEach
  void tearDown() throws Exception {
    amrm.close();
  }

  private static Demand demand(int target, int running, int starting) {
    return new Demand(target, running, starting, 0, Map.of(), Map.of());
  }

  @Test
  void spreadAsksForTheMissingExecutorsUnderNodeAntiAffinity() {
    ConstraintRequests requests = new ConstraintRequests(amrm, EXECUTOR, TestContainers.PRIORITY,
        ConstraintRequests.Kind.SPREAD);

    assertEquals(new RequestDelta(3, 0), requests.reconcile(demand(3, 0, 0)));

    assertEquals(3, requests.pendingRequests());
    assertEquals(3, amrm.last.getResourceSizing().getNumAllocations());
    assertEquals(java.util.Set.of(ConstraintRequests.ALLOCATION_TAG),
        amrm.last.getAllocationTags());
    PlacementConstraint constraint = amrm.last.getPlacementConstraint();
    String text = constraint.toString();
    assertEquals(true, text.contains("notin") && text.contains("node")
        && text.contains(ConstraintRequests.ALLOCATION_TAG), text);
    assertEquals(new RequestDelta(0, 0), requests.reconcile(demand(3, 0, 0)));
  }

  @Test
  void packSeedsOneNodeAndPlacesTheRestBesideIt() {
    ConstraintRequests requests = new ConstraintRequests(amrm, EXECUTOR, TestContainers.PRIORITY,
        ConstraintRequests.Kind.PACK, Duration.ofSeconds(5), clock::get);

    assertEquals(new RequestDelta(3, 0), requests.reconcile(demand(3, 0, 0)));

    assertEquals(1, amrm.lastSeed.getResourceSizing().getNumAllocations());
    assertTrue(amrm.lastSeed.getPlacementConstraint().toString().contains("notin"));
    assertEquals(2, amrm.last.getResourceSizing().getNumAllocations());
    assertTrue(amrm.last.getPlacementConstraint().toString().contains("in,node"),
        amrm.last.getPlacementConstraint().toString());

    Container seed = tagged("n1", ConstraintRequests.SEED_REQUEST_ID);
    requests.assign(List.of(seed), 3, 0);
    assertEquals(2, requests.pendingRequests());
    assertEquals(new RequestDelta(0, 0), requests.reconcile(demand(3, 0, 1)));

    // n1 is full: after 5 s without an allocation another node is seeded.
    clock.addAndGet(5_000);
    assertEquals(new RequestDelta(0, 0), requests.reconcile(demand(3, 1, 0)));
    assertEquals(1, amrm.lastSeed.getResourceSizing().getNumAllocations());
    assertEquals(1, amrm.last.getResourceSizing().getNumAllocations());
  }

  @Test
  void allocationsLowerTheCountAndSurplusIsReleased() {
    ConstraintRequests requests = new ConstraintRequests(amrm, EXECUTOR, TestContainers.PRIORITY,
        ConstraintRequests.Kind.SPREAD);
    requests.reconcile(demand(2, 0, 0));
    List<Container> allocated = List.of(tagged("n1"), tagged("n2"), tagged("n3"));

    ExecutorRequests.Assignment assignment = requests.assign(allocated, 2, 0);

    assertEquals(allocated.subList(0, 2), assignment.toLaunch());
    assertEquals(allocated.subList(2, 3), assignment.surplus());
    assertEquals(0, requests.pendingRequests());
  }

  @Test
  void lowerTargetShrinksTheRequest() {
    ConstraintRequests requests = new ConstraintRequests(amrm, EXECUTOR, TestContainers.PRIORITY,
        ConstraintRequests.Kind.SPREAD);
    requests.reconcile(demand(5, 0, 0));
    assertEquals(new RequestDelta(0, 3), requests.reconcile(demand(3, 1, 0)));
    assertEquals(2, amrm.last.getResourceSizing().getNumAllocations());
    assertEquals(new RequestDelta(0, 2), requests.reconcile(demand(0, 1, 0)));
    assertEquals(0, amrm.last.getResourceSizing().getNumAllocations());
    assertEquals(new RequestDelta(0, 0), requests.reconcile(demand(0, 1, 0)));
  }

  private Container tagged(String host) {
    return tagged(host, ConstraintRequests.ALLOCATION_REQUEST_ID);
  }

  private Container tagged(String host, long allocationRequestId) {
    Container container = containers.container(host, EXECUTOR);
    container.setAllocationRequestId(allocationRequestId);
    return container;
  }
}
