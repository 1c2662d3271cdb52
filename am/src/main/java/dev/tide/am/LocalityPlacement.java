package dev.tide.am;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Placement {@code locality} (DESIGN.md "Placement"): containers go to hosts in proportion to the
 * pending tasks that prefer each host.
 *
 * <p>The locality-aware tasks need {@code ceil(localityAwareTasks / tasksPerExecutor)}
 * executors (at most the target). A host is expected to hold
 * {@code ceil(hostLocalTasks / localityAwareTasks x thoseExecutors)} of them, minus what is
 * already allocated or requested there. Requests are built in layers: each names every host
 * that still lacks containers, the first layer all of them, the next those that lack two or
 * more, and so on, so one request serves tasks that share replicas on several hosts. What is
 * left once no host lacks containers is requested for any host.
 */
public final class LocalityPlacement implements ContainerPlacement {
  @Override
  public List<List<String>> place(Input input) {
    Map<String, Integer> lacking = lackingPerHost(input);
    List<List<String>> requests = new ArrayList<>(input.newRequests());
    while (requests.size() < input.newRequests()) {
      List<String> layer = new ArrayList<>();
      for (Map.Entry<String, Integer> e : lacking.entrySet()) {
        if (e.getValue() > 0) {
          layer.add(e.getKey());
          e.setValue(e.getValue() - 1);
        }
      }
      if (layer.isEmpty()) {
        break;
      }
      requests.add(List.copyOf(layer));
    }
    while (requests.size() < input.newRequests()) {
      requests.add(List.of());
    }
    return requests;
  }

  /** Expected minus existing containers for each host that prefers any; sorted by host. */
  static Map<String, Integer> lackingPerHost(Input input) {
    Map<String, Integer> lacking = new TreeMap<>();
    if (input.localityAwareTasks() <= 0 || input.hostToLocalTaskCount().isEmpty()) {
      return lacking;
    }
    int tasksPerExecutor = Math.max(1, input.tasksPerExecutor());
    int executorsForLocalTasks = Math.min(input.targetExecutors(),
        (input.localityAwareTasks() + tasksPerExecutor - 1) / tasksPerExecutor);
    for (Map.Entry<String, Integer> e : input.hostToLocalTaskCount().entrySet()) {
      int localTasks = Math.min(e.getValue(), input.localityAwareTasks());
      if (localTasks <= 0) {
        continue;
      }
      int expected = (int) Math.ceil(
          (double) localTasks * executorsForLocalTasks / input.localityAwareTasks());
      int existing = input.containersPerHost().getOrDefault(e.getKey(), 0);
      if (expected > existing) {
        lacking.put(e.getKey(), expected - existing);
      }
    }
    return lacking;
  }

  @Override
  public boolean isStale(List<String> requestHosts, Map<String, Integer> hostToLocalTaskCount) {
    for (String host : requestHosts) {
      if (hostToLocalTaskCount.getOrDefault(host, 0) <= 0) {
        return true;
      }
    }
    return false;
  }
}
