package dev.tide.am.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.allocation.LocalityPlacement;
import dev.tide.am.allocation.RackCache;
import dev.tide.am.yarn.ExecutorRequests.Assignment;
import dev.tide.am.yarn.ExecutorRequests.RequestDelta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.util.RackResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reconcile step against YARN's real request table: an {@code AMRMClientImpl} that is never
 * started keeps its table locally (add, remove and getMatchingRequests all work on it).
 */
class ContainerRequestReconcilerTest {
  private static final Resource EXECUTOR = Resource.newInstance(768, 1);

  private AMRMClient<ContainerRequest> amrm;
  private ContainerRequestReconciler reconciler;
  private final TestContainers containers = TestContainers.create();

  @BeforeAll
  static void initRacks() {
    RackResolver.init(new Configuration());
  }

  @BeforeEach
  void setUp() {
    amrm = AMRMClient.createAMRMClient();
    reconciler = new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY);
  }

  @AfterEach
  void tearDown() throws Exception {
    amrm.close();
  }

  @Test
  void targetUpAddsTheMissingRequests() {
    assertEquals(new RequestDelta(4, 0), reconciler.reconcile(4, 0, 0, Map.of()));
    assertEquals(4, reconciler.pendingRequests());

    // Nothing changed: no new requests.
    assertEquals(new RequestDelta(0, 0), reconciler.reconcile(4, 0, 0, Map.of()));
    assertEquals(4, reconciler.pendingRequests());

    // Running and starting executors count towards the target.
    assertEquals(new RequestDelta(3, 0), reconciler.reconcile(9, 1, 1, Map.of()));
    assertEquals(7, reconciler.pendingRequests());
  }

  /**
   * Issue 36: with tide.executor.nodeLabelExpression every request carries the label and names
   * no node nor rack (YARN refuses both together), also when the driver hints at hosts; the
   * requests are stable from round to round.
   */
  @Test
  void withANodeLabelEveryRequestCarriesItAndNamesNoHost() {
    reconciler = new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY,
        new LocalityPlacement(), 1, new RackCache(h -> "/rack1"), "gpu");
    assertEquals(new RequestDelta(3, 0), reconciler.reconcile(3, 0, 0,
        Map.of("host1", 2, "host2", 1)));
    assertEquals(new RequestDelta(0, 0), reconciler.reconcile(3, 0, 0,
        Map.of("host1", 2, "host2", 1)));
    int requests = 0;
    for (var matching : amrm.getMatchingRequests(TestContainers.PRIORITY, ResourceRequest.ANY,
        EXECUTOR)) {
      for (ContainerRequest request : matching) {
        assertEquals("gpu", request.getNodeLabelExpression());
        assertTrue(request.getNodes() == null || request.getNodes().isEmpty());
        assertTrue(request.getRacks() == null || request.getRacks().isEmpty());
        requests++;
      }
    }
    assertEquals(3, requests);
  }

  @Test
  void targetDownCancelsPendingRequests() {
    reconciler.reconcile(8, 0, 0, Map.of());

    assertEquals(new RequestDelta(0, 5), reconciler.reconcile(3, 0, 0, Map.of()));
    assertEquals(3, reconciler.pendingRequests());

    // Running executors are never cancelled: only pending requests go.
    assertEquals(new RequestDelta(0, 3), reconciler.reconcile(1, 2, 0, Map.of()));
    assertEquals(0, reconciler.pendingRequests());

    assertEquals(new RequestDelta(0, 0), reconciler.reconcile(0, 2, 0, Map.of()));
  }

  @Test
  void allocatedContainerRemovesItsMatchedRequest() {
    reconciler.reconcile(3, 0, 0, Map.of());
    Container container = containers.container("node1", EXECUTOR);

    Assignment assignment = reconciler.assign(List.of(container), 3, 0);

    assertEquals(List.of(container), assignment.toLaunch());
    assertEquals(List.of(), assignment.surplus());
    assertEquals(2, reconciler.pendingRequests());
    // With the container starting, the next round asks for nothing more.
    assertEquals(new RequestDelta(0, 0), reconciler.reconcile(3, 0, 1, Map.of()));
  }

  @Test
  void containerLargerThanRequestedStillMatches() {
    // The scheduler rounds resources up (e.g. to a multiple of its minimum allocation).
    reconciler.reconcile(2, 0, 0, Map.of());
    Container container = containers.container("node1", Resource.newInstance(1024, 1));

    assertTrue(reconciler.removeMatchingRequest(container));
    assertEquals(1, reconciler.pendingRequests());
  }

  @Test
  void surplusContainersAreReleasedNotLaunched() {
    reconciler.reconcile(2, 0, 0, Map.of());
    List<Container> allocated = List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR), containers.container("node1", EXECUTOR));

    Assignment assignment = reconciler.assign(allocated, 2, 0);

    assertEquals(allocated.subList(0, 2), assignment.toLaunch());
    assertEquals(allocated.subList(2, 3), assignment.surplus());
    assertEquals(0, reconciler.pendingRequests());
  }

  @Test
  void containersArrivingAfterTheTargetDroppedAreAllSurplus() {
    reconciler.reconcile(4, 0, 0, Map.of());
    reconciler.reconcile(1, 1, 0, Map.of()); // cancels all 4 requests
    assertEquals(0, reconciler.pendingRequests());

    // The RM allocated before it heard of the cancellation.
    List<Container> allocated = List.of(containers.container("node1", EXECUTOR),
        containers.container("node2", EXECUTOR));
    Assignment assignment = reconciler.assign(allocated, 1, 1);

    assertEquals(List.of(), assignment.toLaunch());
    assertEquals(allocated, assignment.surplus());
  }

  @Test
  void neededContainerWithoutARequestLeftIsLaunched() {
    // Target rose again after its request was cancelled; the late container is welcome.
    reconciler.reconcile(1, 0, 0, Map.of());
    reconciler.reconcile(0, 0, 0, Map.of());
    Container container = containers.container("node1", EXECUTOR);

    Assignment assignment = reconciler.assign(List.of(container), 1, 0);

    assertEquals(List.of(container), assignment.toLaunch());
    assertFalse(reconciler.removeMatchingRequest(container));
  }

  @Test
  void fullRampUpAndDown() {
    assertEquals(new RequestDelta(4, 0), reconciler.reconcile(4, 0, 0, Map.of()));
    Assignment first = reconciler.assign(List.of(containers.container("h1", EXECUTOR),
        containers.container("h2", EXECUTOR)), 4, 0);
    assertEquals(2, first.toLaunch().size());
    assertEquals(2, reconciler.pendingRequests());

    assertEquals(new RequestDelta(4, 0), reconciler.reconcile(8, 2, 0, Map.of()));
    assertEquals(6, reconciler.pendingRequests());

    assertEquals(new RequestDelta(0, 6), reconciler.reconcile(2, 2, 0, Map.of()));
    assertEquals(0, reconciler.pendingRequests());
  }

  /** Locality placement with 1 task per executor and every host on rack /r1. */
  private ContainerRequestReconciler locality() {
    return new ContainerRequestReconciler(amrm, EXECUTOR, TestContainers.PRIORITY,
        new LocalityPlacement(), 1, new RackCache(h -> "/r1"));
  }

  private int pendingOn(String location) {
    int n = 0;
    for (var requests : amrm.getMatchingRequests(TestContainers.PRIORITY, location, EXECUTOR)) {
      n += requests.size();
    }
    return n;
  }

  private static ExecutorRequests.Demand demand(int target, int localityAware,
      Map<String, Integer> hints, Map<String, Integer> containersPerHost) {
    return new ExecutorRequests.Demand(target, 0, 0, localityAware, hints, containersPerHost);
  }

  @Test
  void localRequestsFollowThePendingTasksAndTheRestGoAnywhere() {
    ContainerRequestReconciler reconciler = locality();
    // 6 tasks: 4 prefer h1, 2 prefer h2; 8 executors wanted.
    RequestDelta delta = reconciler.reconcile(
        demand(8, 6, Map.of("h1", 4, "h2", 2), Map.of()));

    assertEquals(new RequestDelta(8, 0, 4, 2), delta);
    assertEquals(4, pendingOn("h1"));
    assertEquals(2, pendingOn("h2"));
    assertEquals(4, pendingOn("/r1"), "racks resolved for every local request");
    assertEquals(8, pendingOn(ResourceRequest.ANY));
  }

  @Test
  void containersAlreadyOnAHostCountAgainstItsShare() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(4, 4, Map.of("h1", 4), Map.of("h1", 3)));
    assertEquals(1, pendingOn("h1"), "4 expected on h1, 3 already there");
    assertEquals(4, pendingOn(ResourceRequest.ANY));
  }

  @Test
  void staleRequestsAreCancelledAndPlacedAgainEvenWhenTheCountIsRight() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(3, 3, Map.of("h1", 3), Map.of()));
    assertEquals(3, pendingOn("h1"));

    RequestDelta delta = reconciler.reconcile(demand(3, 2, Map.of("h2", 2), Map.of()));

    assertEquals(new RequestDelta(3, 3, 2, 1), delta);
    assertEquals(0, pendingOn("h1"));
    assertEquals(2, pendingOn("h2"));
    assertEquals(3, reconciler.pendingRequests());
  }

  @Test
  void aRequestIsKeptWhileMostOfItsHostsArePreferredAndPlacedAgainAfter() {
    ContainerRequestReconciler reconciler = locality();
    // One task on each of 8 hosts, one executor wanted: one request naming all 8.
    Map<String, Integer> hints = new HashMap<>();
    for (int h = 1; h <= 8; h++) {
      hints.put("h" + h, 1);
    }
    reconciler.reconcile(demand(1, 8, hints, Map.of()));
    assertEquals(1, reconciler.pendingRequests());
    assertEquals(1, pendingOn("h8"));

    hints.remove("h8");
    hints.remove("h7");
    assertEquals(new RequestDelta(0, 0), reconciler.reconcile(demand(1, 6, hints, Map.of())),
        "6 of its 8 hosts still preferred: left as it is");
    assertEquals(1, pendingOn("h8"));

    hints.remove("h6");
    hints.remove("h5");
    RequestDelta delta = reconciler.reconcile(demand(1, 4, hints, Map.of()));
    assertEquals(1, delta.cancelled(), "half its hosts no longer preferred: stale");
    assertEquals(1, delta.requested());
    assertEquals(0, pendingOn("h8"));
    assertEquals(1, pendingOn("h1"));
    assertEquals(1, reconciler.pendingRequests());
  }

  @Test
  void anyHostRequestsMadeBeforeTheHintsArePlacedAgainWithLocality() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(3, 0, Map.of(), Map.of()));
    assertEquals(3, reconciler.pendingRequests());

    // Same target; now 2 tasks prefer h1.
    RequestDelta delta = reconciler.reconcile(demand(3, 2, Map.of("h1", 2), Map.of()));

    assertEquals(new RequestDelta(2, 2, 2, 1), delta);
    assertEquals(2, pendingOn("h1"));
    assertEquals(3, reconciler.pendingRequests());
    assertEquals(new RequestDelta(0, 0),
        reconciler.reconcile(demand(3, 2, Map.of("h1", 2), Map.of())), "no churn");
  }

  @Test
  void lowerTargetCancelsAnyHostRequestsBeforeLocalOnes() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(5, 2, Map.of("h1", 2), Map.of()));
    assertEquals(2, pendingOn("h1"));

    assertEquals(new RequestDelta(0, 3),
        reconciler.reconcile(demand(2, 2, Map.of("h1", 2), Map.of())));
    assertEquals(2, pendingOn("h1"), "the 3 any-host requests went first");

    assertEquals(new RequestDelta(0, 1),
        reconciler.reconcile(demand(1, 2, Map.of("h1", 2), Map.of())));
    assertEquals(1, pendingOn("h1"));
  }

  @Test
  void allocatedContainerRemovesTheRequestForItsHostFirst() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(3, 2, Map.of("h1", 1, "h2", 1), Map.of()));
    // Each host lacks one container: one request names h1 and h2, the other two go anywhere.
    assertEquals(1, pendingOn("h1"));
    assertEquals(1, pendingOn("h2"));

    Container onH2 = containers.container("h2", EXECUTOR);
    Container elsewhere = containers.container("h9", EXECUTOR);
    reconciler.assign(List.of(onH2), 3, 0);
    assertEquals(0, pendingOn("h2"), "the request naming h2 was matched");
    assertEquals(2, reconciler.pendingRequests());

    reconciler.assign(List.of(elsewhere), 3, 1);
    assertEquals(1, reconciler.pendingRequests(), "an any-host request was matched");
  }

  @Test
  void containerOnAnotherHostTakesAnAnyHostRequestBeforeALocalOne() {
    ContainerRequestReconciler reconciler = new ContainerRequestReconciler(amrm, EXECUTOR,
        TestContainers.PRIORITY, new LocalityPlacement(), 1, h -> null);
    reconciler.reconcile(demand(2, 1, Map.of("h1", 1), Map.of()));
    assertEquals(1, pendingOn("h1"));

    reconciler.assign(List.of(containers.container("h9", EXECUTOR)), 2, 0);

    assertEquals(1, pendingOn("h1"), "the local request for h1 stays");
    assertEquals(1, reconciler.pendingRequests());
  }

  @Test
  void nodeNamesWithPortsMatchContainersOnThoseNodes() {
    ContainerRequestReconciler reconciler = locality();
    reconciler.reconcile(demand(1, 1, Map.of("h1:45454", 1), Map.of()));
    assertEquals(1, pendingOn("h1:45454"));
    // TestContainers puts every container on port 45454.
    reconciler.assign(List.of(containers.container("h1", EXECUTOR)), 1, 0);
    assertEquals(0, reconciler.pendingRequests());
  }
}
