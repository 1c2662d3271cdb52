package dev.tide.am.allocation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Placements {@code spread} and {@code pack} for ResourceManagers without placement constraints:
 * each request names one node, chosen from the cluster's running nodes. {@code spread} picks the
 * node holding the fewest of our containers (allocated or requested), {@code pack} the one
 * holding the most, so executors share nodes (when that node is full the scheduler places the
 * container elsewhere). Requests keep relaxed locality: this is a preference the scheduler may override,
 * unlike a placement constraint. Hints are ignored, so no request is ever stale.
 */
public final class NodeListPlacement implements ContainerPlacement {
  /** Whether to place over as many or as few nodes as possible. */
  public enum Mode { SPREAD, PACK }

  private final Mode mode;
  private final Supplier<List<String>> runningNodes;

  /** @param runningNodes the cluster's usable node names, asked once per placement */
  public NodeListPlacement(Mode mode, Supplier<List<String>> runningNodes) {
    this.mode = mode;
    this.runningNodes = runningNodes;
  }

  @Override
  public List<List<String>> place(Input input) {
    List<String> nodes = runningNodes.get();
    List<List<String>> requests = new ArrayList<>(input.newRequests());
    if (nodes.isEmpty()) {
      for (int i = 0; i < input.newRequests(); i++) {
        requests.add(List.of());
      }
      return requests;
    }
    Map<String, Integer> perNode = new HashMap<>();
    for (String node : nodes) {
      perNode.put(node, input.containersPerHost().getOrDefault(node, 0));
    }
    for (int i = 0; i < input.newRequests(); i++) {
      String best = null;
      for (String node : nodes) {
        if (best == null || better(perNode.get(node), perNode.get(best))) {
          best = node;
        }
      }
      perNode.merge(best, 1, Integer::sum);
      requests.add(List.of(best));
    }
    return requests;
  }

  private boolean better(int candidate, int current) {
    return mode == Mode.SPREAD ? candidate < current : candidate > current;
  }

  @Override
  public boolean isStale(List<String> requestHosts, Map<String, Integer> hostToLocalTaskCount) {
    return false;
  }
}
