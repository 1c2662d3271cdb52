package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeMigrationTest {
  private final List<String> heard = new ArrayList<>();
  private final NodeStateListener migrator = new NodeStateListener() {
    @Override
    public void decommissioning(String host, long leavesAtMillis) {
      heard.add("decommissioning " + host + " " + leavesAtMillis);
    }

    @Override
    public void lost(String host) {
      heard.add("lost " + host);
    }
  };
  private final LeavingNodes nodes = new LeavingNodes();
  private final NodeMigration migration = new NodeMigration(migrator, nodes, () -> 1_000L);

  @Test
  void aNodeNamedByItsHostIsMigratedByThatHost() {
    nodes.executorNode("1", "node-a");
    nodes.executorNode("2", "node-b");
    migration.decommissioning("node-a", 5_000L);
    migration.lost("node-a");
    assertEquals(List.of("decommissioning node-a 5000", "lost node-a"), heard);
  }

  @Test
  void aNodeWithAPortIsMigratedByItsHostWhenNoOtherNodeSharesIt() {
    nodes.executorNode("1", "node-a:8041");
    nodes.executorNode("2", "node-b:8041");
    migration.decommissioning("node-a:8041", 5_000L);
    assertEquals(List.of("decommissioning node-a 5000"), heard);
  }

  @Test
  void nodesSharingAHostAreNotMigratedTheirMapsRerunAsWithoutMigration() {
    nodes.executorNode("1", "localhost:40001");
    nodes.executorNode("2", "localhost:40002");
    migration.decommissioning("localhost:40001", 5_000L);
    migration.lost("localhost:40001");
    assertEquals(List.of(), heard);
  }

  @Test
  void aNodeLeavingWithoutATimeoutGetsTheCopysBoundFromNow() {
    nodes.executorNode("1", "node-a");
    migration.decommissioning("node-a", -1);
    assertEquals(List.of("decommissioning node-a " + (1_000L + NodeMigration.NO_TIMEOUT_MILLIS)),
        heard);
  }
}
