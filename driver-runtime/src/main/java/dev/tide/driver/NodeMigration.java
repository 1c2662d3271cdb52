package dev.tide.driver;

import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the nodes that leave to the {@link ShuffleMigrator}, which knows map outputs by the
 * host their shuffle service runs on, while node events name nodes as the ResourceManager does:
 * the host, or {@code host:port} with {@code yarn.scheduler.include-port-in-node-name} (several
 * NodeManagers on one host, as on test clusters). A node is migrated by its host only when no
 * other node the application ran on shares that host; otherwise its outputs cannot be told from
 * the others' by host, and its maps rerun when it leaves, as without migration. A node leaving
 * without a timeout (YARN waits for its containers) is given {@link #NO_TIMEOUT_MILLIS}.
 */
final class NodeMigration implements NodeStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(NodeMigration.class);
  /** How long the copy of a node that leaves without a timeout may take. */
  static final long NO_TIMEOUT_MILLIS = 10 * 60_000L;

  private final NodeStateListener migrator;
  private final LeavingNodes nodes;
  private final LongSupplier clock;

  NodeMigration(NodeStateListener migrator, LeavingNodes nodes, LongSupplier clock) {
    this.migrator = migrator;
    this.nodes = nodes;
    this.clock = clock;
  }

  @Override
  public void decommissioning(String node, long leavesAtMillis) {
    String host = hostOf(node);
    if (host == null) {
      LOG.info("Map outputs on {} are not copied: other nodes the application ran on share its"
          + " host; its maps rerun if it leaves", node);
      return;
    }
    migrator.decommissioning(host,
        leavesAtMillis < 0 ? clock.getAsLong() + NO_TIMEOUT_MILLIS : leavesAtMillis);
  }

  @Override
  public void lost(String node) {
    String host = hostOf(node);
    if (host != null) {
      migrator.lost(host);
    }
  }

  /** The node's host when no other known node shares it; else null. */
  private String hostOf(String node) {
    String host = host(node);
    for (String other : nodes.knownNodes()) {
      if (!other.equals(node) && host(other).equals(host)) {
        return null;
      }
    }
    return host;
  }

  private static String host(String node) {
    int colon = node.lastIndexOf(':');
    return colon < 0 ? node : node.substring(0, colon);
  }
}
