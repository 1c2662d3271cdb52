package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.ContainerPlacement.Input;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The locality placement's arithmetic, DESIGN.md "Placement". */
class LocalityPlacementTest {
  private final LocalityPlacement placement = new LocalityPlacement();

  @Test
  void hostsGetContainersInProportionToTheirLocalTasks() {
    // 8 tasks, 2 per executor: 4 executors for them; h1 holds 6 of the tasks, h2 2.
    List<List<String>> requests = placement.place(
        new Input(5, 10, 2, 8, Map.of("h1", 6, "h2", 2), Map.of()));

    assertEquals(List.of(List.of("h1", "h2"), List.of("h1"), List.of("h1"), List.of(),
        List.of()), requests);
  }

  @Test
  void existingContainersAndRequestsLowerAHostsShare() {
    List<List<String>> requests = placement.place(
        new Input(3, 10, 1, 4, Map.of("h1", 2, "h2", 2), Map.of("h1", 2, "h2", 1)));

    assertEquals(List.of(List.of("h2"), List.of(), List.of()), requests);
  }

  @Test
  void replicatedTasksYieldRequestsNamingSeveralHosts() {
    // 3 tasks, each preferring all of h1, h2, h3 (HDFS replicas): 3 executors, any of them.
    List<List<String>> requests = placement.place(
        new Input(3, 3, 1, 3, Map.of("h1", 3, "h2", 3, "h3", 3), Map.of()));

    assertEquals(3, requests.size());
    for (List<String> hosts : requests) {
      assertEquals(List.of("h1", "h2", "h3"), hosts);
    }
  }

  @Test
  void fewerNewRequestsThanHostsLackCapsTheLocalOnes() {
    List<List<String>> requests = placement.place(
        new Input(1, 1, 1, 4, Map.of("h1", 4), Map.of()));
    assertEquals(List.of(List.of("h1")), requests);
  }

  @Test
  void noHintsMeansAnyHost() {
    assertEquals(List.of(List.of(), List.of()),
        placement.place(new Input(2, 2, 1, 0, Map.of(), Map.of())));
  }

  @Test
  void requestsNamingAHostWithoutPendingTasksAreStale() {
    assertFalse(placement.isStale(List.of(), Map.of()));
    assertFalse(placement.isStale(List.of("h1"), Map.of("h1", 1)));
    assertTrue(placement.isStale(List.of("h1", "h2"), Map.of("h1", 1)));
    assertTrue(placement.isStale(List.of("h1"), Map.of("h1", 0)));
  }

  @Test
  void nodeListSpreadPicksTheEmptiestNodesAndPackTheFullest() {
    NodeListPlacement spread = new NodeListPlacement(NodeListPlacement.Mode.SPREAD,
        () -> List.of("n1", "n2", "n3"));
    assertEquals(List.of(List.of("n2"), List.of("n3"), List.of("n2")),
        spread.place(new Input(3, 5, 1, 0, Map.of(), Map.of("n1", 2))));

    NodeListPlacement pack = new NodeListPlacement(NodeListPlacement.Mode.PACK,
        () -> List.of("n1", "n2", "n3"));
    assertEquals(List.of(List.of("n3"), List.of("n3")),
        pack.place(new Input(2, 5, 1, 0, Map.of(), Map.of("n3", 1))));
    assertEquals(List.of(List.of()), new NodeListPlacement(NodeListPlacement.Mode.SPREAD,
        List::of).place(new Input(1, 1, 1, 0, Map.of(), Map.of())));
  }
}
