package dev.tide.am;

import dev.tide.am.allocation.LocalityPlacement;
import dev.tide.am.allocation.NodeListPlacement;
import dev.tide.am.allocation.RackCache;
import dev.tide.am.yarn.ConstraintRequests;
import dev.tide.am.yarn.ContainerRequestReconciler;
import dev.tide.am.yarn.ExecutorRequests;
import dev.tide.app.AppOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.RackResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How executors are asked for under {@code tide.yarn.placement} and
 * {@code tide.executor.nodeLabelExpression}: locality and, on an RM without placement
 * constraints, spread and pack use container requests; spread and pack use a constrained
 * scheduling request where the RM's placement-constraints handler is on. A node label takes
 * requests without locality (YARN takes no node or rack together with a label).
 *
 * <p>Spread and pack by node list read the cluster's running nodes through a {@link YarnClient}
 * of their own, which {@link #close()} stops.
 */
final class PlacementRequests implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementRequests.class);
  private static final Priority EXECUTOR_PRIORITY = Priority.newInstance(1);

  private final ExecutorRequests requests;
  private final YarnClient yarnClient;

  private PlacementRequests(ExecutorRequests requests, YarnClient yarnClient) {
    this.requests = requests;
    this.yarnClient = yarnClient;
  }

  /** The requests that place executors of {@code executorResource} as {@code conf} says. */
  static PlacementRequests of(Configuration conf, AMRMClient<ContainerRequest> amrmClient,
      Resource executorResource, boolean nodeNamesIncludePort) {
    AmOptions.Placement placement = AmOptions.placement(conf);
    int tasksPerExecutor = Math.max(1,
        AppOptions.EXECUTOR_CORES.get(conf) / AppOptions.TASK_CPUS.get(conf));
    RackCache racks = new RackCache(
        h -> RackResolver.resolve(conf, h).getNetworkLocation());
    String label = AmOptions.EXECUTOR_NODE_LABEL_EXPRESSION.get(conf).trim();
    if (!label.isEmpty()) {
      LOG.info("Executors ask for nodes of label expression '{}' ({}); YARN takes no node or"
          + " rack together with a label, so they are asked for without locality and {} = {}"
          + " does not apply", label, AmOptions.EXECUTOR_NODE_LABEL_EXPRESSION.key(),
          AmOptions.PLACEMENT.key(), placement.name().toLowerCase());
      return new PlacementRequests(new ContainerRequestReconciler(amrmClient, executorResource,
          EXECUTOR_PRIORITY, new LocalityPlacement(racks), tasksPerExecutor, racks, label),
          null);
    }
    if (placement == AmOptions.Placement.LOCALITY) {
      return new PlacementRequests(new ContainerRequestReconciler(amrmClient, executorResource,
          EXECUTOR_PRIORITY, new LocalityPlacement(racks), tasksPerExecutor, racks), null);
    }
    String handler = conf.getTrimmed(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
        YarnConfiguration.DISABLED_RM_PLACEMENT_CONSTRAINTS_HANDLER);
    boolean constraints = !handler.equals(
        YarnConfiguration.DISABLED_RM_PLACEMENT_CONSTRAINTS_HANDLER);
    LOG.info("Placement {} with {} (yarn.resourcemanager.placement-constraints.handler = {})",
        placement, constraints ? "placement constraints" : "node-list requests", handler);
    if (constraints) {
      return new PlacementRequests(new ConstraintRequests(amrmClient, executorResource,
          EXECUTOR_PRIORITY, placement == AmOptions.Placement.SPREAD
              ? ConstraintRequests.Kind.SPREAD : ConstraintRequests.Kind.PACK), null);
    }
    YarnClient yarnClient = YarnClient.createYarnClient();
    yarnClient.init(conf);
    yarnClient.start();
    Supplier<List<String>> runningNodes = () -> {
      try {
        List<String> nodes = new ArrayList<>();
        for (NodeReport report : yarnClient.getNodeReports(NodeState.RUNNING)) {
          NodeId id = report.getNodeId();
          nodes.add(nodeNamesIncludePort ? id.toString() : id.getHost());
        }
        return nodes;
      } catch (Exception e) {
        LOG.warn("Cannot list the cluster's nodes; asking for any node", e);
        return List.of();
      }
    };
    return new PlacementRequests(new ContainerRequestReconciler(amrmClient, executorResource,
        EXECUTOR_PRIORITY, new NodeListPlacement(placement == AmOptions.Placement.SPREAD
            ? NodeListPlacement.Mode.SPREAD : NodeListPlacement.Mode.PACK, runningNodes),
        tasksPerExecutor, racks), yarnClient);
  }

  ExecutorRequests requests() {
    return requests;
  }

  @Override
  public void close() {
    if (yarnClient != null) {
      yarnClient.stop();
    }
  }
}
