package dev.tide.shuffle.yarn;

import static org.apache.hadoop.metrics2.lib.Interns.info;

import dev.tide.shuffle.server.ServerStats;
import dev.tide.shuffle.server.ShuffleServer;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableQuantiles;
import org.apache.hadoop.metrics2.lib.MutableRate;

/**
 * The shuffle service's metrics2 source: the NodeManager's metrics system publishes it (JMX
 * bean {@code Hadoop:service=NodeManager,name=TideShuffle-<port>}, so it shows in the
 * NodeManager's /jmx, and any configured sinks). One per service instance, registered under a
 * name that includes the port so several NodeManagers in one JVM do not collide.
 *
 * <p>Record {@code TideShuffle}, context {@code tide}:
 * <ul>
 *   <li>gauges: OpenConnections, UnauthenticatedConnections, ActiveFetches, OpenFiles,
 *       IdleOpenFiles, IndexCacheBytes, InFlightBytes, DirectMemoryBytes,
 *       RegisteredApplications;
 *   <li>counters: FetchesServed, FetchesFailed, BlocksServed, BytesServed, AuthFailures,
 *       BusyReplies, ConnectionsRefused, BadFrames, UnauthenticatedConnectionsClosed,
 *       IdleConnectionsClosed, InternalErrors;
 *   <li>FetchLatencyNumOps / FetchLatencyAvgTime (microseconds, since start) and
 *       FetchLatency{N}s{50,75,90,95,99}thPercentileLatencyMicros with FetchLatency{N}sNumFetches
 *       over the last window of N seconds ({@code tide.shuffle.metrics.quantileInterval}).
 * </ul>
 * Latency is from reading the request to the last byte of the reply handed to the kernel.
 * Thread-safe: counters are read from {@link ServerStats}; the quantiles are synchronized.
 */
final class ShuffleMetricsSource implements MetricsSource {
  static final String RECORD = "TideShuffle";
  private static final String CONTEXT = "tide";

  private final MetricsRegistry registry = new MetricsRegistry(RECORD).setContext(CONTEXT);
  private final MutableRate latency =
      registry.newRate("FetchLatency", "fetch latency in microseconds", false);
  private final MutableQuantiles latencyQuantiles;
  private final ServerStats stats = new ServerStats(this::recordFetchLatency);
  private volatile ShuffleServer server;
  private volatile String registeredName;

  ShuffleMetricsSource(int quantileIntervalSeconds) {
    latencyQuantiles = registry.newQuantiles("FetchLatency" + quantileIntervalSeconds + "s",
        "fetch latency", "Fetches", "LatencyMicros", quantileIntervalSeconds);
  }

  /** The stats the server must count into (pass to its constructor). */
  ServerStats stats() {
    return stats;
  }

  /** The server whose gauges (cache, in-flight, memory) this source reports. */
  void bind(ShuffleServer s) {
    server = s;
  }

  private void recordFetchLatency(long nanos) {
    long micros = TimeUnit.NANOSECONDS.toMicros(nanos);
    latency.add(micros);
    latencyQuantiles.add(micros);
  }

  /** Registers as {@code TideShuffle-<port>}; returns the name. */
  String register(MetricsSystem system, int port) {
    String name = RECORD + "-" + port;
    system.register(name, "Tide shuffle service on port " + port, this);
    registeredName = name;
    return name;
  }

  /** Unregisters (if registered) and stops the quantiles' rollover; safe to call twice. */
  void unregister(MetricsSystem system) {
    String name = registeredName;
    registeredName = null;
    if (name != null) {
      system.unregisterSource(name);
    }
    latencyQuantiles.stop();
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord(RECORD).setContext(CONTEXT);
    ShuffleServer s = server;
    rb.addGauge(m("OpenConnections", "connections open now"), stats.openConnections())
        .addGauge(m("UnauthenticatedConnections", "connections open now that have not"
            + " authenticated yet"), stats.unauthenticatedConnections())
        .addGauge(m("ActiveFetches", "fetch requests accepted and not yet answered"),
            stats.activeFetches())
        .addGauge(m("OpenFiles", "data files open for replies being sent"), stats.openFiles())
        .addGauge(m("IdleOpenFiles", "data files kept open for later replies"),
            stats.idleOpenFiles())
        .addGauge(m("IndexCacheBytes", "bytes of index offsets cached"),
            s == null ? 0L : s.indexCacheBytes())
        .addGauge(m("InFlightBytes", "reply bytes written and not yet sent"),
            s == null ? 0L : s.inFlightBytes())
        .addGauge(m("DirectMemoryBytes", "direct memory in use by the service's buffer pool"),
            s == null ? 0L : s.directMemoryInUse())
        .addGauge(m("RegisteredApplications", "applications the service serves"),
            s == null ? 0 : s.registeredApplications().size())
        .addCounter(m("FetchesServed", "fetch requests answered with data"),
            stats.fetchesServed())
        .addCounter(m("FetchesFailed", "fetch requests accepted and answered with an error"),
            stats.fetchesFailed())
        .addCounter(m("BlocksServed", "blocks sent"), stats.blocksServed())
        .addCounter(m("BytesServed", "block data bytes sent"), stats.bytesServed())
        .addCounter(m("VerifiesServed", "verify requests answered with a block's checksum read"
            + " from disk again"), stats.verifiesServed())
        .addCounter(m("VerifiedDamaged", "verified blocks whose bytes on disk no longer match"
            + " the checksum their map task wrote"), stats.verifiedDamaged())
        .addCounter(m("MigratedOut", "map outputs copied to another service (confirmed by it)"),
            stats.migratedOut())
        .addCounter(m("MigratedOutBytes", "data bytes of those map outputs"),
            stats.migratedOutBytes())
        .addCounter(m("MigrationsOutFailed", "map outputs asked to be copied and not copied"),
            stats.migrationsOutFailed())
        .addCounter(m("MigrationThrottledNanos", "time copies waited for"
            + " tide.shuffle.migration.maxBytesPerSec, in nanoseconds"),
            stats.migrationThrottledNanos())
        .addCounter(m("PushesReceived", "map outputs another service pushed here, verified and"
            + " committed"), stats.pushesReceived())
        .addCounter(m("PushedBytesReceived", "data bytes of those map outputs"),
            stats.pushedBytesReceived())
        .addCounter(m("PushesRefused", "pushes refused (unknown application, checksum, bad"
            + " message, no local dir)"), stats.pushesRefused())
        .addCounter(m("AuthFailures", "handshakes refused"), stats.authFailures())
        .addCounter(m("BusyReplies", "BUSY answers to requests and connections"),
            stats.busyReplies())
        .addCounter(m("ConnectionsRefused", "connections refused at a limit"),
            stats.connectionsRefused())
        .addCounter(m("BadFrames", "frames of authenticated peers refused as malformed"),
            stats.badFrames())
        .addCounter(m("UnauthenticatedConnectionsClosed", "connections closed before they"
            + " authenticated to make room for newer ones"), stats.unauthenticatedPushedOut())
        .addCounter(m("IdleConnectionsClosed", "connections closed for being idle"),
            stats.idleConnectionsClosed())
        .addCounter(m("InternalErrors", "unexpected failures (INTERNAL replies, connections"
            + " closed on an unexpected exception)"), stats.internalErrors());
    registry.snapshot(rb, all);
  }

  private static MetricsInfo m(String name, String description) {
    return info(name, description);
  }
}
