package dev.tide.am.yarn;

import dev.tide.am.allocation.ExecutorFailures;
import dev.tide.driver.events.EventName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The YARN side of node exclusion: counts executor failures per node ({@link ExecutorFailures}),
 * excludes a node with too many through the RM's blacklist for
 * {@code tide.yarn.hostExclusionTimeout}, ends exclusions that expired, and never leaves the
 * application without a node: when every node the RM offers is excluded while executors are
 * wanted, the oldest exclusion is lifted with a WARN. Also says, for the job status, which
 * exclusions keep wanted executors from starting. Not thread-safe: the allocator thread only.
 */
final class NodeExclusions {
  private static final Logger LOG = LoggerFactory.getLogger(NodeExclusions.class);
  /** Excluded nodes named in the status; the rest are counted. */
  private static final int EXCLUDED_NODES_SHOWN = 5;

  /** Where exclusion events go (the driver's event log). */
  interface EventSink {
    void logEvent(EventName name, Object... fields);
  }

  /**
   * What node exclusion needs of the allocator's settings.
   *
   * @param failuresValidity how long an executor failure counts
   * @param maxFailuresPerNode failures on one node that exclude it
   * @param exclusionTimeout how long a node stays excluded
   * @param nodeName the RM's name of a node (host, or host:port)
   * @param clockMillis wall-clock time for failure windows and exclusions
   */
  record Settings(Duration failuresValidity, int maxFailuresPerNode, Duration exclusionTimeout,
      Function<NodeId, String> nodeName, LongSupplier clockMillis) {}

  private final AMRMClient<ContainerRequest> amrmClient;
  private final Settings settings;
  private final ExecutorFailures failures;
  private final EventSink events;
  /** Nodes the RM can place containers on, from the last allocate response; 0 before. */
  private int clusterNodes;
  /** Nodes the RM reported lost, unhealthy, decommissioned or shut down (and not back). */
  private final Set<String> unusableNodes = new HashSet<>();
  /** The last lift of an exclusion, shown in the status until the wanted executors are in. */
  private String liftNote = "";

  /**
   * @param maxFailures the application's limit now (see
   *     {@link dev.tide.am.allocation.MaxExecutorFailures})
   */
  NodeExclusions(AMRMClient<ContainerRequest> amrmClient, Settings settings,
      IntSupplier maxFailures, EventSink events) {
    this.amrmClient = amrmClient;
    this.settings = settings;
    this.events = events;
    this.failures = new ExecutorFailures(maxFailures, settings.failuresValidity(),
        settings.maxFailuresPerNode(), settings.exclusionTimeout(), settings.clockMillis());
  }

  /**
   * Counts an executor failure on {@code node} at {@code progress} (tasks succeeded so far); with
   * {@code againstNode} it also counts towards excluding the node, which is excluded if it has
   * too many.
   */
  ExecutorFailures.Verdict failure(String node, boolean againstNode, long progress) {
    ExecutorFailures.Verdict verdict = failures.record(node, againstNode, progress);
    if (verdict.nodeExcluded()) {
      LOG.warn("Excluding node {} for {} s: {} executor failures there (tide.yarn"
          + ".maxFailuresPerHost = {})", node, settings.exclusionTimeout().toSeconds(),
          verdict.perNode().get(node), settings.maxFailuresPerNode());
      amrmClient.updateBlacklist(List.of(node), null);
      events.logEvent(EventName.NODE_EXCLUDED, "node", node, "failures",
          verdict.perNode().get(node), "until",
          settings.clockMillis().getAsLong() + settings.exclusionTimeout().toMillis());
    }
    return verdict;
  }

  void endExpired() {
    List<String> ended = failures.endExpiredExclusions();
    if (!ended.isEmpty()) {
      LOG.info("Nodes {} may take executors again", ended);
      amrmClient.updateBlacklist(null, ended);
      for (String node : ended) {
        events.logEvent(EventName.NODE_EXCLUSION_ENDED, "node", node);
      }
    }
  }

  /**
   * Keeps a node the application may use: with every usable node excluded, no container can be
   * allocated until an exclusion ends (10 min by default) and the job would sit still.
   */
  void liftIfNoNodeLeft(int wanted, int runningOrStarting) {
    int excluded = failures.excludedNodes().size();
    failures.liftOldestIfAllExcluded(clusterNodes, unusableNodes).ifPresent(node -> {
      LOG.warn("All {} nodes excluded for executor failures; lifting the oldest exclusion, of"
          + " node {}, so the application can go on ({} executors wanted, {} running or"
          + " starting)", clusterNodes, node, wanted, runningOrStarting);
      amrmClient.updateBlacklist(null, List.of(node));
      events.logEvent(EventName.NODE_EXCLUSION_LIFTED, "node", node, "clusterNodes",
          clusterNodes, "excludedNodes", excluded);
      liftNote = "all " + clusterNodes + " nodes were excluded, lifted " + node;
    });
  }

  /** Takes the cluster's size and the nodes' health from an allocate response. */
  void noteClusterNodes(AllocateResponse response) {
    clusterNodes = response.getNumClusterNodes();
    List<NodeReport> updated = response.getUpdatedNodes();
    if (updated == null) {
      return;
    }
    for (NodeReport report : updated) {
      String node = settings.nodeName().apply(report.getNodeId());
      if (report.getNodeState() != null && report.getNodeState().isUnusable()) {
        unusableNodes.add(node);
      } else {
        unusableNodes.remove(node);
      }
    }
  }

  /**
   * Why wanted executors are missing, as far as exclusions go; empty when none are missing
   * ({@code missing} false) or nothing is excluded.
   */
  String describeWaiting(boolean missing) {
    if (!missing) {
      liftNote = "";
      return "";
    }
    List<String> excluded = failures.excludedNodes();
    List<String> parts = new ArrayList<>();
    if (!excluded.isEmpty()) {
      String shown = String.join(",", excluded.subList(0,
          Math.min(EXCLUDED_NODES_SHOWN, excluded.size())));
      if (excluded.size() > EXCLUDED_NODES_SHOWN) {
        shown += " and " + (excluded.size() - EXCLUDED_NODES_SHOWN) + " more";
      }
      parts.add("nodes excluded " + shown + " (executor failures)");
    }
    if (!liftNote.isEmpty()) {
      parts.add(liftNote);
    }
    return String.join("; ", parts);
  }
}
