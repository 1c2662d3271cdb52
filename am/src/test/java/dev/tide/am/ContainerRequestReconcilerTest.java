package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.ContainerRequestReconciler.Assignment;
import dev.tide.am.ContainerRequestReconciler.RequestDelta;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.junit.jupiter.api.AfterEach;
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
    assertEquals(new RequestDelta(4, 0), reconciler.reconcile(4, 0, 0, Map.of("h1", 3)));
    Assignment first = reconciler.assign(List.of(containers.container("h1", EXECUTOR),
        containers.container("h2", EXECUTOR)), 4, 0);
    assertEquals(2, first.toLaunch().size());
    assertEquals(2, reconciler.pendingRequests());

    assertEquals(new RequestDelta(4, 0), reconciler.reconcile(8, 2, 0, Map.of()));
    assertEquals(6, reconciler.pendingRequests());

    assertEquals(new RequestDelta(0, 6), reconciler.reconcile(2, 2, 0, Map.of()));
    assertEquals(0, reconciler.pendingRequests());
  }
}
