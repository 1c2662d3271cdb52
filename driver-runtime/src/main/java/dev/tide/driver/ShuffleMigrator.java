package dev.tide.driver;

import dev.tide.driver.events.EventName;
import dev.tide.driver.scheduler.JobScheduler.ServedOutput;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the map outputs of a node that is leaving (YARN graceful decommission): when the node is
 * reported DECOMMISSIONING, the migrator asks its {@code tide_shuffle} to copy the application's
 * map outputs it holds to the services of other nodes where the application has executors (the
 * only services that know the application's secret), spread over them in turn, and moves each
 * output's location in the driver's map-output table as soon as its copy is confirmed, so
 * reducers fetch it there. What is not confirmed before the node leaves (no other node, no time
 * left, the copy failed, the node was lost first) stays where it was: when the node goes, those
 * maps are rerun as without migration. Events: {@code migrationStarted}, then
 * {@code migrationFinished} (every output moved) or {@code migrationFailed} (some or all left to
 * reruns, with the reason).
 *
 * <p>Threading: the table and the event log are read and changed only on {@code owner} (the
 * driver's event loop); the copies run one request at a time on {@code worker}, blocking there.
 * The {@link NodeStateListener} methods may be called from any thread.
 */
public final class ShuffleMigrator implements NodeStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleMigrator.class);
  /** Map outputs per MIGRATE_REQUEST: each reply moves that many locations at once. */
  static final int DEFAULT_BATCH = 16;

  /** The driver's map-output table as the migrator uses it; called on the owner only. */
  public interface MapOutputTable {
    List<ServedOutput> mapOutputsOn(String host);

    /** host -> shuffle port of every node where an executor of the application runs. */
    Map<String, Integer> liveShuffleServices();

    boolean moveMapOutput(int shuffleId, int mapId, String fromHost, int fromPort,
        String toHost, int toPort);
  }

  /** Asks the service at host:port to copy map outputs to a target (a MIGRATE_REQUEST). */
  @FunctionalInterface
  public interface Transport {
    MigrateReply migrate(String host, int port, String targetHost, int targetPort,
        long timeoutMillis, List<MapOutputId> maps) throws Exception;
  }

  /** Where events go; called on the owner only. */
  @FunctionalInterface
  public interface Events {
    void record(EventName event, Object... keyValues);
  }

  private final Executor owner;
  private final Supplier<MapOutputTable> table;
  private final Transport transport;
  private final Executor worker;
  private final LongSupplier clock;
  private final Events events;
  private final int batch;
  // Owned by the owner thread.
  private final Map<String, Migration> migrating = new HashMap<>();
  private final Set<String> leaving = new HashSet<>();

  /**
   * @param table the table of the running job; null before it starts (nothing to migrate)
   * @param clock epoch milliseconds, as {@code leavesAtMillis}
   */
  public ShuffleMigrator(Executor owner, Supplier<MapOutputTable> table, Transport transport,
      Executor worker, LongSupplier clock, Events events) {
    this(owner, table, transport, worker, clock, events, DEFAULT_BATCH);
  }

  ShuffleMigrator(Executor owner, Supplier<MapOutputTable> table, Transport transport,
      Executor worker, LongSupplier clock, Events events, int batch) {
    this.owner = owner;
    this.table = table;
    this.transport = transport;
    this.worker = worker;
    this.clock = clock;
    this.events = events;
    this.batch = batch;
  }

  /** One node's migration; its counts are changed on the owner, {@code lost} read anywhere. */
  private static final class Migration {
    final String host;
    final long leavesAtMillis;
    final long startMillis;
    final int outputs;
    int moved;
    long bytes;
    final List<String> failures = new ArrayList<>();
    volatile boolean lost;

    Migration(String host, long leavesAtMillis, long startMillis, int outputs) {
      this.host = host;
      this.leavesAtMillis = leavesAtMillis;
      this.startMillis = startMillis;
      this.outputs = outputs;
    }
  }

  /** One MIGRATE_REQUEST: outputs served at sourcePort to copy to target. */
  private record Batch(int sourcePort, String targetHost, int targetPort, List<MapOutputId> maps) {}

  @Override
  public void decommissioning(String host, long leavesAtMillis) {
    owner.execute(() -> start(host, leavesAtMillis));
  }

  @Override
  public void lost(String host) {
    owner.execute(() -> {
      leaving.add(host);
      Migration m = migrating.get(host);
      if (m != null) {
        m.lost = true;
      }
    });
  }

  private void start(String host, long leavesAtMillis) {
    // Once per node: a report repeated (each heartbeat) or after the node was lost changes nothing.
    if (!leaving.add(host)) {
      return;
    }
    MapOutputTable t = table.get();
    if (t == null) {
      return;
    }
    List<ServedOutput> outputs = t.mapOutputsOn(host);
    if (outputs.isEmpty()) {
      return;
    }
    long now = clock.getAsLong();
    Map<String, Integer> targets = new LinkedHashMap<>(t.liveShuffleServices());
    targets.keySet().removeAll(leaving);
    if (targets.isEmpty() || leavesAtMillis <= now) {
      String why = targets.isEmpty() ? "no other node has an executor of the application"
          : "the node leaves at once";
      LOG.warn("Cannot keep the {} map outputs on decommissioning node {}: {}; their maps rerun"
          + " when it leaves", outputs.size(), host, why);
      events.record(EventName.MIGRATION_FAILED, "host", host, "outputs", outputs.size(),
          "moved", 0, "reason", why);
      return;
    }
    List<Batch> batches = plan(outputs, targets);
    Migration m = new Migration(host, leavesAtMillis, now, outputs.size());
    migrating.put(host, m);
    LOG.info("Node {} is being decommissioned (leaves in {} ms): copying its {} map outputs to"
        + " {}", host, leavesAtMillis - now, outputs.size(), targets.keySet());
    events.record(EventName.MIGRATION_STARTED, "host", host, "outputs", outputs.size(),
        "targets", String.join(",", targets.keySet()), "leavesInMillis", leavesAtMillis - now);
    worker.execute(() -> copy(m, batches));
  }

  /** Deals the outputs to the targets in turn, then cuts each target's share into batches. */
  private List<Batch> plan(List<ServedOutput> outputs, Map<String, Integer> targets) {
    List<String> hosts = new ArrayList<>(targets.keySet());
    Map<String, Map<Integer, List<MapOutputId>>> shares = new LinkedHashMap<>();
    for (int i = 0; i < outputs.size(); i++) {
      ServedOutput o = outputs.get(i);
      shares.computeIfAbsent(hosts.get(i % hosts.size()), k -> new LinkedHashMap<>())
          .computeIfAbsent(o.port(), k -> new ArrayList<>())
          .add(new MapOutputId(o.shuffleId(), o.mapId()));
    }
    List<Batch> batches = new ArrayList<>();
    shares.forEach((target, byPort) -> byPort.forEach((port, maps) -> {
      for (int from = 0; from < maps.size(); from += batch) {
        batches.add(new Batch(port, target, targets.get(target),
            List.copyOf(maps.subList(from, Math.min(maps.size(), from + batch)))));
      }
    }));
    return batches;
  }

  /** On the worker: one request after another while the node has not left. */
  private void copy(Migration m, List<Batch> batches) {
    for (Batch b : batches) {
      long left = m.leavesAtMillis - clock.getAsLong();
      if (m.lost || left <= 0) {
        String why = m.lost ? "the node was lost" : "the node's time was up";
        owner.execute(() -> m.failures.add(b.maps().size() + " outputs not copied to "
            + b.targetHost() + ": " + why));
        continue;
      }
      try {
        MigrateReply reply = transport.migrate(m.host, b.sourcePort(), b.targetHost(),
            b.targetPort(), left, b.maps());
        owner.execute(() -> confirmed(m, b, reply));
      } catch (Exception e) {
        LOG.warn("Copying {} map outputs from {} to {} failed; they rerun if the node leaves",
            b.maps().size(), m.host, b.targetHost(), e);
        owner.execute(() -> m.failures.add(b.maps().size() + " outputs to " + b.targetHost()
            + ": " + e.getMessage()));
      }
    }
    owner.execute(() -> finish(m));
  }

  /** On the owner: moves the locations of the outputs the target confirmed. */
  private void confirmed(Migration m, Batch b, MigrateReply reply) {
    MapOutputTable t = table.get();
    for (MapOutputId map : reply.copied()) {
      if (t != null && t.moveMapOutput(map.shuffleId(), map.mapId(), m.host, b.sourcePort(),
          b.targetHost(), b.targetPort())) {
        m.moved++;
      }
    }
    m.bytes += reply.bytesCopied();
    if (!reply.failures().isEmpty()) {
      m.failures.add("to " + b.targetHost() + ": " + reply.failures());
    }
  }

  private void finish(Migration m) {
    migrating.remove(m.host);
    long millis = clock.getAsLong() - m.startMillis;
    if (m.moved == m.outputs) {
      LOG.info("Moved all {} map outputs of decommissioning node {} ({} bytes in {} ms)",
          m.moved, m.host, m.bytes, millis);
      events.record(EventName.MIGRATION_FINISHED, "host", m.host, "outputs", m.outputs,
          "moved", m.moved, "bytes", m.bytes, "millis", millis);
    } else {
      String reason = m.failures.isEmpty() ? "outputs changed meanwhile"
          : String.join("; ", m.failures);
      LOG.warn("Moved {} of {} map outputs of decommissioning node {}; the others rerun when it"
          + " leaves: {}", m.moved, m.outputs, m.host, reason);
      events.record(EventName.MIGRATION_FAILED, "host", m.host, "outputs", m.outputs,
          "moved", m.moved, "bytes", m.bytes, "millis", millis, "reason",
          reason.length() > 1000 ? reason.substring(0, 1000) + "..." : reason);
    }
  }
}
