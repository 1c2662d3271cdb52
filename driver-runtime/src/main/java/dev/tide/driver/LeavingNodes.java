package dev.tide.driver;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's view of nodes and containers that leave: nodes being decommissioned (and when
 * they leave), the node each executor runs on, the executors that get no new tasks because
 * their node leaves or YARN takes their container back (draining, with the reason their
 * removal will record; a task failing there is lost with the executor, not counted), and the {@link NodeStateListener}s told of each change.
 *
 * <p>Threading: owned by the driver's event loop, except {@link #executorNode} and
 * {@link #addListener} (any thread).
 */
final class LeavingNodes {
  private static final Logger LOG = LoggerFactory.getLogger(LeavingNodes.class);

  private final List<NodeStateListener> listeners = new CopyOnWriteArrayList<>();
  /** Executor -> the RM's name of its node, as the AM reported it at launch. */
  private final Map<String, String> nodeOf = new ConcurrentHashMap<>();
  /** Decommissioning node -> when it leaves (epoch ms, -1 unknown). */
  private final Map<String, Long> decommissioning = new LinkedHashMap<>();
  /** Draining executor -> why (recorded when it is removed). */
  private final Map<String, String> draining = new HashMap<>();

  void addListener(NodeStateListener listener) {
    listeners.add(listener);
  }

  /** The AM launched {@code executorId} on this node (the RM's name). Any thread. */
  void executorNode(String executorId, String node) {
    nodeOf.put(executorId, node);
  }

  /** The nodes executors were launched on (the RM's names). Any thread. */
  java.util.Set<String> knownNodes() {
    return java.util.Set.copyOf(nodeOf.values());
  }

  /** The node of an executor: the one the AM reported, else its host. */
  String nodeOf(String executorId, String host) {
    return nodeOf.getOrDefault(executorId, host);
  }

  /** Records a decommissioning node; false when it was already known as such. */
  boolean decommissioning(String node, long leavesAtMillis) {
    Long before = decommissioning.put(node, leavesAtMillis);
    if (before != null && before == leavesAtMillis) {
      return false;
    }
    for (NodeStateListener listener : listeners) {
      try {
        listener.decommissioning(node, leavesAtMillis);
      } catch (RuntimeException e) {
        LOG.warn("Node state listener {} failed on the decommissioning of {}", listener, node, e);
      }
    }
    return true;
  }

  /** The node has gone; the listeners hear of it. */
  void lost(String node) {
    decommissioning.remove(node);
    for (NodeStateListener listener : listeners) {
      try {
        listener.lost(node);
      } catch (RuntimeException e) {
        LOG.warn("Node state listener {} failed on the loss of {}", listener, node, e);
      }
    }
  }

  /** The node runs again (recommissioned); true when it was decommissioning. */
  boolean running(String node) {
    return decommissioning.remove(node) != null;
  }

  /** Whether this node is being decommissioned. */
  boolean isDecommissioning(String node) {
    return decommissioning.containsKey(node);
  }

  /** When a decommissioning node leaves (epoch ms, -1 unknown), or null. */
  Long leavesAt(String node) {
    return decommissioning.get(node);
  }

  /** Of {@code executorIds} (with their hosts), those on {@code node}. */
  List<String> on(String node, Map<String, String> hostOfExecutor) {
    List<String> on = new ArrayList<>();
    hostOfExecutor.forEach((id, host) -> {
      if (node.equals(nodeOf(id, host))) {
        on.add(id);
      }
    });
    return on;
  }

  /** Marks executors draining for {@code why}; returns those newly marked. */
  List<String> drain(Collection<String> executorIds, String why) {
    List<String> added = new ArrayList<>();
    for (String id : executorIds) {
      if (draining.putIfAbsent(id, why) == null) {
        added.add(id);
      }
    }
    return added;
  }

  /** Why the executor drains, or null. */
  String drainReason(String executorId) {
    return draining.get(executorId);
  }

  /** Forgets a removed executor. */
  void removed(String executorId) {
    draining.remove(executorId);
    nodeOf.remove(executorId);
  }
}
