package dev.tide.it.nodes;

import dev.tide.it.EmbeddedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.protocolrecords.AddToClusterNodeLabelsRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.ReplaceLabelsOnNodeRequest;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;

/**
 * An {@link EmbeddedCluster} (same fast settings, real tide_shuffle service, nodes named
 * host:port) whose CapacityScheduler has two queues, {@code a} and {@code b} (half the cluster
 * each, up to all of it), preemption on (the ProportionalCapacityPreemptionPolicy, checking
 * every 500 ms, killing 4 s after asking), and node labels: the last NodeManager carries the
 * exclusive label {@value #LABEL}, which only queue {@code a} may use.
 */
final class NodesCluster {
  static final String LABEL = "tagged";

  private NodesCluster() {}

  static EmbeddedCluster start(String name, int nodeManagers, Path workDir) throws Exception {
    Files.createDirectories(workDir);
    // The test jar's capacity-scheduler.xml is loaded after this configuration: the queues go
    // in as final properties it cannot override (as in ConstrainedCluster).
    Path queues = workDir.resolve("queues.xml");
    Map<String, String> q = Map.ofEntries(
        Map.entry("yarn.scheduler.capacity.root.queues", "a,b"),
        Map.entry("yarn.scheduler.capacity.root.a.capacity", "50"),
        Map.entry("yarn.scheduler.capacity.root.b.capacity", "50"),
        Map.entry("yarn.scheduler.capacity.root.a.maximum-capacity", "100"),
        Map.entry("yarn.scheduler.capacity.root.b.maximum-capacity", "100"),
        Map.entry("yarn.scheduler.capacity.root.a.user-limit-factor", "2"),
        Map.entry("yarn.scheduler.capacity.root.b.user-limit-factor", "2"),
        Map.entry("yarn.scheduler.capacity.root.accessible-node-labels", "*"),
        Map.entry("yarn.scheduler.capacity.root.accessible-node-labels." + LABEL + ".capacity",
            "100"),
        Map.entry("yarn.scheduler.capacity.root.a.accessible-node-labels", LABEL),
        Map.entry("yarn.scheduler.capacity.root.a.accessible-node-labels." + LABEL
            + ".capacity", "100"),
        Map.entry("yarn.scheduler.capacity.root.b.accessible-node-labels", " "),
        Map.entry("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5"),
        Map.entry("yarn.scheduler.capacity.node-locality-delay", "-1"));
    StringBuilder xml = new StringBuilder("<configuration>");
    q.forEach((k, v) -> xml.append("<property><name>").append(k).append("</name><value>")
        .append(v).append("</value><final>true</final></property>"));
    Files.writeString(queues, xml.append("</configuration>").toString());
    Path labels = workDir.resolve("node-labels");
    EmbeddedCluster cluster = EmbeddedCluster.start(name, nodeManagers, workDir, conf -> {
      conf.set("yarn.resourcemanager.scheduler.class",
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
      conf.addResource(new org.apache.hadoop.fs.Path(queues.toUri()));
      conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
      conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR, labels.toUri().toString());
      conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
      conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES, "org.apache.hadoop.yarn.server"
          + ".resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy");
      conf.setLong("yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval", 500);
      conf.setLong("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill",
          4000);
      conf.setFloat(
          "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round", 1f);
      conf.setFloat(
          "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor", 1f);
    });
    ResourceManager rm = cluster.yarn().getResourceManager();
    rm.getRMContext().getRMAdminService().addToClusterNodeLabels(AddToClusterNodeLabelsRequest.newInstance(
        List.of(NodeLabel.newInstance(LABEL, true))));
    NodeId tagged = cluster.yarn().getNodeManager(nodeManagers - 1).getNMContext().getNodeId();
    rm.getRMContext().getRMAdminService().replaceLabelsOnNode(ReplaceLabelsOnNodeRequest.newInstance(
        Map.of(tagged, Set.of(LABEL))));
    return cluster;
  }

  /** The RM's name of the labelled NodeManager. */
  static String taggedNode(EmbeddedCluster cluster, int nodeManagers) {
    return cluster.yarn().getNodeManager(nodeManagers - 1).getNMContext().getNodeId()
        .toString();
  }

}
