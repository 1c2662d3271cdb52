package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.allocation.ContainerPlacement.Input;
import java.util.HashMap;
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
  void replicatedTasksShareTheirExecutorsAmongTheirHosts() {
    // 3 tasks, each preferring all of h1, h2, h3 (HDFS replicas): 3 executors for 9 host
    // shares (Spark's divisor), so one each: one request naming the three, two for any host.
    List<List<String>> requests = placement.place(
        new Input(3, 3, 1, 3, Map.of("h1", 3, "h2", 3, "h3", 3), Map.of()));

    assertEquals(List.of(List.of("h1", "h2", "h3"), List.of(), List.of()), requests);
  }

  @Test
  void expectationsAddUpToTheExecutorsTheLocalTasksNeed() {
    // 12 tasks with 3 replicas each over 6 hosts (6 local tasks per host), 2 tasks per
    // executor: 6 executors, one per host, not 3 (which dividing by the tasks would give).
    Map<String, Integer> hints = new HashMap<>();
    for (int i = 1; i <= 6; i++) {
      hints.put("h" + i, 6);
    }
    Map<String, Integer> lacking = LocalityPlacement.lackingPerHost(
        new Input(6, 6, 2, 12, hints, Map.of()));
    assertEquals(6, lacking.size());
    assertTrue(lacking.values().stream().allMatch(n -> n == 1), lacking::toString);
  }

  @Test
  void fewerNewRequestsThanHostsLackCapsTheLocalOnes() {
    List<List<String>> requests = placement.place(
        new Input(1, 1, 1, 4, Map.of("h1", 4), Map.of()));
    assertEquals(List.of(List.of("h1")), requests);
  }

  @Test
  void largeLayersAreSplitIntoRequestsOfConsecutiveHostsOfOneRack() {
    // 32 hosts on 2 racks (odd and even numbers), one task each, 1 task per executor: each host
    // lacks one container. 32 requests to place: the layer of 32 hosts becomes 4 requests of 8,
    // each within one rack; the other 28 go anywhere.
    Map<String, Integer> hints = new HashMap<>();
    for (int i = 0; i < 32; i++) {
      hints.put(String.format("h%02d", i), 1);
    }
    LocalityPlacement byRack = new LocalityPlacement(h -> "/r" + (h.charAt(2) - '0') % 2);
    List<List<String>> requests = byRack.place(new Input(32, 32, 1, 32, hints, Map.of()));

    assertEquals(32, requests.size());
    List<List<String>> local = requests.stream().filter(r -> !r.isEmpty()).toList();
    assertEquals(4, local.size());
    assertEquals(List.of("h00", "h02", "h04", "h06", "h08", "h10", "h12", "h14"), local.get(0));
    java.util.Set<String> named = new java.util.HashSet<>();
    for (List<String> hosts : local) {
      assertEquals(LocalityPlacement.MIN_HOSTS_PER_REQUEST, hosts.size());
      assertEquals(1, hosts.stream().map(h -> (h.charAt(2) - '0') % 2).distinct().count(),
          "one rack per request: " + hosts);
      named.addAll(hosts);
    }
    assertEquals(hints.keySet(), named, "every lacking host is named once");
  }

  @Test
  void fewRequestsStillNameEveryLackingHost() {
    // 200 tasks, 2 per host on 100 hosts (one replica each): 200 executors, 2 per host, 200
    // shares; but only 5 requests are wanted: requests of at least 40 hosts, so each layer of
    // 100 becomes 2 requests of 50; 4 requests name every host twice and the fifth goes
    // anywhere.
    Map<String, Integer> hints = new HashMap<>();
    for (int i = 0; i < 100; i++) {
      hints.put(String.format("h%03d", i), 2);
    }
    List<List<String>> requests = placement.place(new Input(5, 200, 1, 200, hints, Map.of()));

    assertEquals(5, requests.size());
    Map<String, Integer> named = new HashMap<>();
    for (List<String> hosts : requests.subList(0, 4)) {
      assertEquals(50, hosts.size());
      hosts.forEach(h -> named.merge(h, 1, Integer::sum));
    }
    assertEquals(List.of(), requests.get(4));
    assertEquals(100, named.size());
    assertTrue(named.values().stream().allMatch(n -> n == 2));
  }

  @Test
  void noHintsMeansAnyHost() {
    assertEquals(List.of(List.of(), List.of()),
        placement.place(new Input(2, 2, 1, 0, Map.of(), Map.of())));
  }

  @Test
  void requestsNamingHalfTheirHostsWithoutPendingTasksAreStale() {
    assertFalse(placement.isStale(List.of(), Map.of()));
    assertFalse(placement.isStale(List.of("h1"), Map.of("h1", 1)));
    assertTrue(placement.isStale(List.of("h1", "h2"), Map.of("h1", 1)));
    assertTrue(placement.isStale(List.of("h1"), Map.of("h1", 0)));
    // Of eight hosts, one or three no longer preferred: kept; four: stale.
    List<String> eight = List.of("h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8");
    Map<String, Integer> hints = new HashMap<>();
    for (String h : eight) {
      hints.put(h, 2);
    }
    hints.remove("h8");
    assertFalse(placement.isStale(eight, hints));
    hints.remove("h7");
    hints.remove("h6");
    assertFalse(placement.isStale(eight, hints));
    hints.remove("h5");
    assertTrue(placement.isStale(eight, hints));
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
