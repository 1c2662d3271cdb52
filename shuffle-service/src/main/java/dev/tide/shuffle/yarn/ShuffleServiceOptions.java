package dev.tide.shuffle.yarn;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.bytesOption;
import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.stringOption;

import dev.tide.conf.ConfigOption;
import dev.tide.conf.ConfigOptions;
import dev.tide.shuffle.server.ShuffleServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * The {@code tide.shuffle.*} settings the NodeManager's yarn-site.xml may carry, as
 * {@link ConfigOption}s (key, default, meaning and accepted range in one place), and the
 * translation into a {@link ShuffleServerConfig}. Durations and sizes are written as anywhere in
 * Hadoop ({@code 120s}, {@code 256m}); a bare number keeps the unit of the key's old name
 * (milliseconds, bytes or seconds), and the old names ({@code tide.shuffle.idleTimeout.ms},
 * {@code tide.shuffle.maxReply.bytes} ...) are still read, with a deprecation warning. The
 * settings table of {@code shuffle-service/OPERATIONS.md} is generated from {@link #ALL}.
 * Stateless.
 */
public final class ShuffleServiceOptions {
  private static final int INT_MAX = Integer.MAX_VALUE;

  public static final ConfigOption<Integer> PORT = intOption("tide.shuffle.port", 7447, 0, 65535,
      "TCP port of the tide_shuffle service; 0 picks a free port (tests). Applications learn it"
      + " from the service either way.");
  public static final ConfigOption<String> BIND_HOST = stringOption("tide.shuffle.bindHost", "",
      "Address to bind; empty binds all interfaces.");
  public static final ConfigOption<Boolean> STOP_ON_FAILURE = booleanOption(
      "tide.shuffle.stopOnFailure", false, "Fail the NodeManager when the service cannot"
      + " configure or start (a bad setting, the port in use); otherwise the failure is logged"
      + " and the NodeManager runs without the service.");
  public static final ConfigOption<Integer> IO_THREADS = intOption("tide.shuffle.io.threads", 2,
      1, 1024, "Netty event loop threads.");
  public static final ConfigOption<Integer> DISK_THREADS = intOption("tide.shuffle.disk.threads",
      2, 1, 1024, "Threads reading index files and opening data files.");
  public static final ConfigOption<Integer> DISK_QUEUE = intOption("tide.shuffle.disk.queue",
      1024, 1, INT_MAX, "Requests waiting for a disk thread before BUSY is answered.");
  public static final ConfigOption<Long> INDEX_CACHE = bytesOption("tide.shuffle.indexCache.size",
      "16m", 0, "Memory for index offsets cached (least recently used out first).")
      .withDeprecatedKeys("tide.shuffle.indexCache.bytes");
  public static final ConfigOption<Long> MAX_IN_FLIGHT = bytesOption("tide.shuffle.maxInFlight",
      "4g", 1, "Reply bytes queued for sending over all connections before BUSY is answered (a"
      + " reply is always admitted when nothing is in flight).")
      .withDeprecatedKeys("tide.shuffle.maxInFlight.bytes");
  public static final ConfigOption<Long> MAX_IN_FLIGHT_PER_CONNECTION = bytesOption(
      "tide.shuffle.maxInFlightPerConnection", "256m", 1, "Reply bytes queued for sending on one"
      + " connection before BUSY is answered (a reply is always admitted when the connection has"
      + " nothing in flight).").withDeprecatedKeys("tide.shuffle.maxInFlightPerConnection.bytes");
  public static final ConfigOption<Long> MAX_REPLY = bytesOption("tide.shuffle.maxReply", "1g",
      64, INT_MAX, "Largest reply (header and data) of one request; a larger request is answered"
      + " BAD_REQUEST and the client must split it.")
      .withDeprecatedKeys("tide.shuffle.maxReply.bytes");
  public static final ConfigOption<Long> MAX_REQUEST_FRAME = bytesOption(
      "tide.shuffle.maxRequestFrame", "1m", 64, INT_MAX, "Largest request frame accepted; larger"
      + " ones are skipped and answered BAD_REQUEST.")
      .withDeprecatedKeys("tide.shuffle.maxRequestFrame.bytes");
  public static final ConfigOption<Integer> MAX_BLOCKS = intOption(
      "tide.shuffle.maxBlocksPerRequest", 10000, 1, INT_MAX, "Most blocks one request may name.");
  public static final ConfigOption<Integer> MAX_CONNECTIONS = intOption(
      "tide.shuffle.maxConnections", 2048, 1, INT_MAX,
      "Open connections; one more is answered BUSY and closed.");
  public static final ConfigOption<Integer> MAX_UNAUTHENTICATED_CONNECTIONS = intOption(
      "tide.shuffle.maxUnauthenticatedConnections", 1024, 1, INT_MAX, "Open connections that have"
      + " not authenticated yet (a value above tide.shuffle.maxConnections counts as that); one"
      + " more closes the oldest of them, so peers that never authenticate can neither take every"
      + " connection nor keep a real client from connecting.");
  public static final ConfigOption<Long> MAX_DIRECT_MEMORY = bytesOption(
      "tide.shuffle.maxDirectMemory", "256m", 1, "Direct memory the service's buffer pool may have"
      + " in use before new connections and requests are answered BUSY.")
      .withDeprecatedKeys("tide.shuffle.maxDirectMemory.bytes");
  public static final ConfigOption<Integer> DIRECT_ARENAS = intOption("tide.shuffle.directArenas",
      2, 1, 256, "Direct arenas of the service's pooled buffer allocator.");
  public static final ConfigOption<Duration> IDLE_TIMEOUT = durationOption(
      "tide.shuffle.idleTimeout", "120s", TimeUnit.MILLISECONDS, "A connection with no reads, no"
      + " write progress and no request waiting for the disk for this long is closed.")
      .withCheck(d -> !d.isZero(), "must be positive")
      .withDeprecatedKeys("tide.shuffle.idleTimeout.ms");
  public static final ConfigOption<Duration> BUSY_RETRY_AFTER = durationOption(
      "tide.shuffle.busyRetryAfter", "1s", TimeUnit.MILLISECONDS,
      "Retry-after sent with every BUSY answer.")
      .withCheck(d -> d.toMillis() <= INT_MAX, "must be at most " + INT_MAX + "ms")
      .withDeprecatedKeys("tide.shuffle.busyRetryAfter.ms");
  public static final ConfigOption<Duration> HANDSHAKE_TIMEOUT = durationOption(
      "tide.shuffle.handshakeTimeout", "10s", TimeUnit.MILLISECONDS,
      "Time a connection has to authenticate.")
      .withCheck(d -> !d.isZero(), "must be positive")
      .withDeprecatedKeys("tide.shuffle.handshakeTimeout.ms");
  public static final ConfigOption<Boolean> EPOLL = booleanOption("tide.shuffle.epoll.enabled",
      false, "Use the native epoll transport when available (NIO otherwise; both send data"
      + " zero-copy).");
  public static final ConfigOption<Boolean> CRYPTO_REQUIRED = booleanOption(
      "tide.shuffle.crypto.required", false, "Refuse connections whose client does not encrypt"
      + " (jobs without tide.network.crypto.enabled, and clients from before encryption);"
      + " when false they are served in the clear as before, and clients that encrypt are"
      + " served encrypted either way.");
  public static final ConfigOption<Long> COPY_BELOW = bytesOption("tide.shuffle.copyBelow",
      "32k", 0, 1 << 20, "File ranges shorter than this are read into memory on a disk thread and"
      + " sent with the reply's other short ranges in one write, instead of one zero-copy"
      + " sendfile each; 0 sends every range zero-copy.")
      .withDeprecatedKeys("tide.shuffle.copyBelow.bytes");
  public static final ConfigOption<Long> MAX_COPIED = bytesOption("tide.shuffle.maxCopied", "32m",
      0, "Bytes of such copies held at once over the service; past it, short ranges go zero-copy"
      + " too.").withDeprecatedKeys("tide.shuffle.maxCopied.bytes");
  public static final ConfigOption<Duration> METRICS_QUANTILE_INTERVAL = durationOption(
      "tide.shuffle.metrics.quantileInterval", "60s", TimeUnit.SECONDS,
      "Window of the fetch latency percentiles published in the metrics, in whole seconds.")
      .withCheck(d -> d.toSeconds() >= 1 && d.toSeconds() <= 86400, "must be from 1s to 1d")
      .withDeprecatedKeys("tide.shuffle.metrics.quantileInterval.sec");

  public static final ConfigOption<Long> MIGRATION_MAX_BYTES_PER_SEC = bytesOption(
      "tide.shuffle.migration.maxBytesPerSec", "64m", 1, "Bytes per second of map output data the"
      + " service sends when the driver asks it to copy an application's map outputs to another"
      + " node's service (a node being decommissioned); bounds the disk and network a migration"
      + " takes from the node's running work. Written as a size: 64m is 64 MiB per second.");

  /** The NodeManager's local dirs (same key as YarnConfiguration.NM_LOCAL_DIRS). */
  public static final String NM_LOCAL_DIRS = "yarn.nodemanager.local-dirs";

  /** Every setting, in the order of the docs. */
  public static final List<ConfigOption<?>> ALL = List.of(PORT, BIND_HOST, STOP_ON_FAILURE,
      IO_THREADS, DISK_THREADS, DISK_QUEUE, INDEX_CACHE, MAX_REQUEST_FRAME, MAX_BLOCKS, MAX_REPLY,
      MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_CONNECTION, MAX_CONNECTIONS,
      MAX_UNAUTHENTICATED_CONNECTIONS, MAX_DIRECT_MEMORY, DIRECT_ARENAS, IDLE_TIMEOUT,
      BUSY_RETRY_AFTER, HANDSHAKE_TIMEOUT, EPOLL, CRYPTO_REQUIRED, COPY_BELOW, MAX_COPIED,
      METRICS_QUANTILE_INTERVAL, MIGRATION_MAX_BYTES_PER_SEC);

  private ShuffleServiceOptions() {}

  /** Lenient on purpose (Hadoop's parsing: anything but "true" is false), so that a typo here
   * can never be what takes the NodeManager down. */
  public static boolean stopOnFailure(Configuration conf) {
    return conf.getBoolean(STOP_ON_FAILURE.key(), STOP_ON_FAILURE.defaultValue());
  }

  /** {@code key=value} of every setting as in effect (defaults filled in), for the log. */
  public static String describe(Configuration conf) {
    return ConfigOptions.describe(conf, ALL);
  }

  /** {@code tide.shuffle.*} keys of {@code conf} that are no setting of the service (typos). */
  public static Set<String> unknownKeys(Configuration conf) {
    return ConfigOptions.unknownKeys(conf, "tide.shuffle.", ALL);
  }

  /** Window of the latency percentiles, in seconds. */
  public static int quantileIntervalSeconds(Configuration conf) {
    return (int) METRICS_QUANTILE_INTERVAL.get(conf).toSeconds();
  }

  /**
   * Validates every setting, then builds the server's configuration.
   *
   * @throws IllegalArgumentException naming each bad key and its value
   */
  public static ShuffleServerConfig serverConfig(Configuration conf) {
    ConfigOptions.validate(conf, ALL);
    String bindHost = BIND_HOST.get(conf);
    return ShuffleServerConfig.builder()
        .port(PORT.get(conf))
        .bindHost(bindHost.isEmpty() ? null : bindHost)
        .localDirs(localDirs(conf))
        .ioThreads(IO_THREADS.get(conf))
        .diskThreads(DISK_THREADS.get(conf))
        .diskQueueCapacity(DISK_QUEUE.get(conf))
        .indexCacheBytes(INDEX_CACHE.get(conf))
        .maxInFlightBytes(MAX_IN_FLIGHT.get(conf))
        .maxInFlightBytesPerConnection(MAX_IN_FLIGHT_PER_CONNECTION.get(conf))
        .maxReplyBytes(MAX_REPLY.get(conf))
        .maxRequestFrameBytes(Math.toIntExact(MAX_REQUEST_FRAME.get(conf)))
        .maxBlocksPerRequest(MAX_BLOCKS.get(conf))
        .maxConnections(MAX_CONNECTIONS.get(conf))
        .maxUnauthenticatedConnections(MAX_UNAUTHENTICATED_CONNECTIONS.get(conf))
        .maxDirectMemoryBytes(MAX_DIRECT_MEMORY.get(conf))
        .directArenas(DIRECT_ARENAS.get(conf))
        .idleTimeout(IDLE_TIMEOUT.get(conf))
        .busyRetryAfter(BUSY_RETRY_AFTER.get(conf))
        .handshakeTimeout(HANDSHAKE_TIMEOUT.get(conf))
        .useEpoll(EPOLL.get(conf))
        .cryptoRequired(CRYPTO_REQUIRED.get(conf))
        .copyBelowBytes(Math.toIntExact(COPY_BELOW.get(conf)))
        .maxCopiedBytes(MAX_COPIED.get(conf))
        .migrationMaxBytesPerSec(MIGRATION_MAX_BYTES_PER_SEC.get(conf))
        .build();
  }

  /** The NodeManager local dirs, as plain paths (a {@code file:} URI form is accepted). */
  static List<Path> localDirs(Configuration conf) {
    String[] dirs = conf.getTrimmedStrings(NM_LOCAL_DIRS);
    if (dirs.length == 0) {
      String tmp = conf.get("hadoop.tmp.dir");
      if (tmp == null) {
        throw new IllegalArgumentException(NM_LOCAL_DIRS + " is not set");
      }
      dirs = new String[] {tmp + "/nm-local-dir"};
    }
    List<Path> paths = new ArrayList<>();
    for (String d : dirs) {
      String local = new org.apache.hadoop.fs.Path(d).toUri().getPath();
      paths.add(Path.of(local));
    }
    return paths;
  }
}
