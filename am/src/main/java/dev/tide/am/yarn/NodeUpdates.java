package dev.tide.am.yarn;

import dev.tide.driver.events.EventName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes that leave, as the RM reports them in an allocate response's updated nodes:
 * DECOMMISSIONING (with the time left, {@code getDecommissioningTimeout()}), then
 * DECOMMISSIONED; LOST, UNHEALTHY and SHUTDOWN (gone at once); RUNNING again (a decommissioning
 * cancelled). Each change is logged (WARN or INFO), recorded in the event log and told to the
 * driver, which stops giving tasks to the executors of a decommissioning node. While a node
 * leaves the allocator asks for no executor there and releases a container granted there.
 *
 * <p>Not thread-safe: the allocator thread only.
 */
final class NodeUpdates {
  private static final Logger LOG = LoggerFactory.getLogger(NodeUpdates.class);

  private final Function<NodeId, String> nodeName;
  private final LongSupplier clockMillis;
  private final DriverCallbacks driver;
  /** Nodes decommissioning or gone -> the last state reported. */
  private final Map<String, NodeState> leaving = new HashMap<>();

  NodeUpdates(Function<NodeId, String> nodeName, LongSupplier clockMillis,
      DriverCallbacks driver) {
    this.nodeName = nodeName;
    this.clockMillis = clockMillis;
    this.driver = driver;
  }

  /** Takes the node changes of one allocate response (null or empty: none). */
  void apply(List<NodeReport> updated) {
    if (updated == null) {
      return;
    }
    for (NodeReport report : updated) {
      NodeState state = report.getNodeState();
      if (state == null) {
        continue;
      }
      String node = nodeName.apply(report.getNodeId());
      NodeState before = leaving.get(node);
      switch (state) {
        case DECOMMISSIONING -> {
          if (before == NodeState.DECOMMISSIONING) {
            continue;
          }
          leaving.put(node, state);
          Integer timeout = report.getDecommissioningTimeout();
          long leavesAt = timeout == null || timeout < 0 ? -1
              : clockMillis.getAsLong() + timeout * 1000L;
          LOG.warn("Node {} is being decommissioned ({}): no new executor nor task goes there;"
              + " its running tasks may finish", node, leavesAt < 0 ? "no timeout"
              : "it leaves in " + timeout + " s");
          driver.logEvent(EventName.NODE_DECOMMISSIONING, "node", node, "host",
              report.getNodeId().getHost(), "timeoutSeconds", timeout == null ? -1 : timeout,
              "leavesAt", leavesAt);
          driver.nodeDecommissioning(node, leavesAt);
        }
        case DECOMMISSIONED, LOST, UNHEALTHY, SHUTDOWN -> {
          if (before == state) {
            continue;
          }
          leaving.put(node, state);
          LOG.warn("Node {} is {}: its executors end; no new executor goes there", node,
              state.name().toLowerCase());
          driver.logEvent(EventName.NODE_LOST, "node", node, "host",
              report.getNodeId().getHost(), "state", state.name(), "health",
              report.getHealthReport() == null ? "" : report.getHealthReport());
          driver.nodeLost(node);
        }
        case RUNNING -> {
          if (before == null) {
            continue;
          }
          leaving.remove(node);
          LOG.info("Node {} runs again (was {})", node, before.name().toLowerCase());
          driver.logEvent(EventName.NODE_RUNNING, "node", node, "host",
              report.getNodeId().getHost(), "was", before.name());
          driver.nodeRunning(node);
        }
        default -> {
          // NEW, REBOOTED: nothing the application acts on.
        }
      }
    }
  }

  /** Whether no executor may go to this node (decommissioning or gone). */
  boolean isLeaving(NodeId node) {
    return leaving.containsKey(nodeName.apply(node));
  }

  /** The names of the nodes decommissioning or gone. */
  Set<String> leavingNodes() {
    return Set.copyOf(leaving.keySet());
  }
}
