package dev.tide.shuffle.yarn;

import dev.tide.shuffle.server.ShuffleServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The {@code tide.shuffle.*} settings the NodeManager's yarn-site.xml may carry, each with its
 * key, default, meaning and accepted range in one place, and the translation into a
 * {@link ShuffleServerConfig}. Numbers are checked against their range and booleans must read
 * true or false; a bad value is refused with a message naming the key, the range and the value.
 * The admin's view of the same table is {@code shuffle-service/OPERATIONS.md}. Stateless.
 */
public final class ShuffleServiceOptions {
  /**
   * One setting: key, default (as text), what it means, and for numbers the accepted range
   * (inclusive; ignored for text and booleans).
   */
  public record Option(String key, String defaultValue, String description, long min, long max) {
    public Option(String key, String defaultValue, String description) {
      this(key, defaultValue, description, Long.MIN_VALUE, Long.MAX_VALUE);
    }
  }

  private static final long INT_MAX = Integer.MAX_VALUE;

  public static final Option PORT = new Option("tide.shuffle.port", "7447",
      "TCP port of the shuffle service; 0 picks an ephemeral port (tests)", 0, 65535);
  public static final Option BIND_HOST = new Option("tide.shuffle.bindHost", "",
      "address to bind; empty for all interfaces");
  public static final Option STOP_ON_FAILURE = new Option("tide.shuffle.stopOnFailure", "false",
      "fail the NodeManager when the service cannot start (otherwise it is logged and skipped)");
  public static final Option IO_THREADS = new Option("tide.shuffle.io.threads", "2",
      "Netty event loop threads", 1, 1024);
  public static final Option DISK_THREADS = new Option("tide.shuffle.disk.threads", "2",
      "threads reading index files and opening data files", 1, 1024);
  public static final Option DISK_QUEUE = new Option("tide.shuffle.disk.queue", "1024",
      "requests queued for the disk threads before BUSY is answered", 1, INT_MAX);
  public static final Option INDEX_CACHE_BYTES = new Option("tide.shuffle.indexCache.bytes",
      "16777216", "bytes of index offsets cached in memory", 0, Long.MAX_VALUE);
  public static final Option MAX_IN_FLIGHT_BYTES = new Option("tide.shuffle.maxInFlight.bytes",
      "4294967296", "reply bytes queued for sending over all connections before BUSY is"
      + " answered (a reply is always admitted when nothing is in flight)", 1, Long.MAX_VALUE);
  public static final Option MAX_IN_FLIGHT_PER_CONNECTION_BYTES = new Option(
      "tide.shuffle.maxInFlightPerConnection.bytes", "268435456",
      "reply bytes queued for sending on one connection before BUSY is answered (a reply is"
      + " always admitted when the connection has nothing in flight)", 1, Long.MAX_VALUE);
  public static final Option MAX_REPLY_BYTES = new Option("tide.shuffle.maxReply.bytes",
      "1073741824", "largest reply (header + data) of one request", 64, INT_MAX);
  public static final Option MAX_REQUEST_FRAME_BYTES = new Option(
      "tide.shuffle.maxRequestFrame.bytes", "1048576",
      "largest request frame accepted; larger ones are skipped and answered BAD_REQUEST", 64,
      INT_MAX);
  public static final Option MAX_BLOCKS = new Option("tide.shuffle.maxBlocksPerRequest", "10000",
      "most blocks one request may name", 1, INT_MAX);
  public static final Option MAX_CONNECTIONS = new Option("tide.shuffle.maxConnections", "2048",
      "open connections; one more is answered BUSY and closed", 1, INT_MAX);
  public static final Option MAX_UNAUTHENTICATED_CONNECTIONS = new Option(
      "tide.shuffle.maxUnauthenticatedConnections", "1024",
      "open connections that have not authenticated yet (above tide.shuffle.maxConnections"
          + " counts as that); one more closes the oldest of them", 1, INT_MAX);
  public static final Option MAX_DIRECT_MEMORY_BYTES = new Option(
      "tide.shuffle.maxDirectMemory.bytes", "268435456",
      "direct memory the service's buffer pool may have in use before new connections and"
      + " requests are answered BUSY", 1, Long.MAX_VALUE);
  public static final Option DIRECT_ARENAS = new Option("tide.shuffle.directArenas", "2",
      "direct arenas of the service's pooled buffer allocator", 1, 256);
  public static final Option IDLE_TIMEOUT_MS = new Option("tide.shuffle.idleTimeout.ms",
      "120000", "a connection with no reads, no write progress and no request waiting for the"
      + " disk for this long is closed", 1, Long.MAX_VALUE);
  public static final Option BUSY_RETRY_AFTER_MS = new Option("tide.shuffle.busyRetryAfter.ms",
      "1000", "retry-after sent with every BUSY answer", 0, INT_MAX);
  public static final Option HANDSHAKE_TIMEOUT_MS = new Option(
      "tide.shuffle.handshakeTimeout.ms", "10000", "time a connection has to authenticate", 1,
      Long.MAX_VALUE);
  public static final Option EPOLL = new Option("tide.shuffle.epoll.enabled", "false",
      "use the native epoll transport when available");
  public static final Option COPY_BELOW_BYTES = new Option("tide.shuffle.copyBelow.bytes",
      "32768", "file ranges shorter than this are read into memory and sent together in one"
      + " write instead of one zero-copy sendfile each (0: every range zero-copy)", 0, 1 << 20);
  public static final Option MAX_COPIED_BYTES = new Option("tide.shuffle.maxCopied.bytes",
      "33554432", "bytes of such copies held at once; past it ranges go zero-copy", 0,
      Long.MAX_VALUE);
  public static final Option METRICS_QUANTILE_INTERVAL_SEC = new Option(
      "tide.shuffle.metrics.quantileInterval.sec", "60",
      "window of the fetch latency percentiles published in the metrics", 1, 86400);

  /** The NodeManager's local dirs (same key as YarnConfiguration.NM_LOCAL_DIRS). */
  public static final String NM_LOCAL_DIRS = "yarn.nodemanager.local-dirs";

  public static final List<Option> ALL = List.of(PORT, BIND_HOST, STOP_ON_FAILURE, IO_THREADS,
      DISK_THREADS, DISK_QUEUE, INDEX_CACHE_BYTES, MAX_IN_FLIGHT_BYTES,
      MAX_IN_FLIGHT_PER_CONNECTION_BYTES, MAX_REPLY_BYTES, MAX_REQUEST_FRAME_BYTES, MAX_BLOCKS,
      MAX_CONNECTIONS, MAX_UNAUTHENTICATED_CONNECTIONS, MAX_DIRECT_MEMORY_BYTES, DIRECT_ARENAS, IDLE_TIMEOUT_MS,
      BUSY_RETRY_AFTER_MS, HANDSHAKE_TIMEOUT_MS, EPOLL, COPY_BELOW_BYTES, MAX_COPIED_BYTES,
      METRICS_QUANTILE_INTERVAL_SEC);

  private ShuffleServiceOptions() {}

  /** Lenient on purpose (Hadoop's parsing: anything but "true" is false), so that a typo here
   * can never be what takes the NodeManager down. */
  public static boolean stopOnFailure(Configuration conf) {
    return conf.getBoolean(STOP_ON_FAILURE.key(),
        Boolean.parseBoolean(STOP_ON_FAILURE.defaultValue()));
  }

  /** {@code key=value} of every setting as in effect (defaults filled in), for the log. */
  public static String describe(Configuration conf) {
    StringBuilder out = new StringBuilder();
    for (Option o : ALL) {
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(o.key()).append('=').append(conf.getTrimmed(o.key(), o.defaultValue()));
    }
    return out.toString();
  }

  /** Window of the latency percentiles, in seconds. */
  public static int quantileIntervalSeconds(Configuration conf) {
    return intValue(conf, METRICS_QUANTILE_INTERVAL_SEC);
  }

  /**
   * @throws IllegalArgumentException naming the key and the bad value
   */
  public static ShuffleServerConfig serverConfig(Configuration conf) {
    String bindHost = conf.getTrimmed(BIND_HOST.key(), BIND_HOST.defaultValue());
    return ShuffleServerConfig.builder()
        .port(intValue(conf, PORT))
        .bindHost(bindHost.isEmpty() ? null : bindHost)
        .localDirs(localDirs(conf))
        .ioThreads(intValue(conf, IO_THREADS))
        .diskThreads(intValue(conf, DISK_THREADS))
        .diskQueueCapacity(intValue(conf, DISK_QUEUE))
        .indexCacheBytes(longValue(conf, INDEX_CACHE_BYTES))
        .maxInFlightBytes(longValue(conf, MAX_IN_FLIGHT_BYTES))
        .maxInFlightBytesPerConnection(longValue(conf, MAX_IN_FLIGHT_PER_CONNECTION_BYTES))
        .maxReplyBytes(longValue(conf, MAX_REPLY_BYTES))
        .maxRequestFrameBytes(intValue(conf, MAX_REQUEST_FRAME_BYTES))
        .maxBlocksPerRequest(intValue(conf, MAX_BLOCKS))
        .maxConnections(intValue(conf, MAX_CONNECTIONS))
        .maxUnauthenticatedConnections(intValue(conf, MAX_UNAUTHENTICATED_CONNECTIONS))
        .maxDirectMemoryBytes(longValue(conf, MAX_DIRECT_MEMORY_BYTES))
        .directArenas(intValue(conf, DIRECT_ARENAS))
        .idleTimeout(Duration.ofMillis(longValue(conf, IDLE_TIMEOUT_MS)))
        .busyRetryAfter(Duration.ofMillis(longValue(conf, BUSY_RETRY_AFTER_MS)))
        .handshakeTimeout(Duration.ofMillis(longValue(conf, HANDSHAKE_TIMEOUT_MS)))
        .useEpoll(booleanValue(conf, EPOLL))
        .copyBelowBytes(intValue(conf, COPY_BELOW_BYTES))
        .maxCopiedBytes(longValue(conf, MAX_COPIED_BYTES))
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

  private static int intValue(Configuration conf, Option option) {
    return (int) longValue(conf, option);
  }

  private static long longValue(Configuration conf, Option option) {
    String raw = conf.getTrimmed(option.key(), option.defaultValue());
    long value;
    try {
      value = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option.key() + " must be an integer, got '" + raw + "'");
    }
    if (value < option.min() || value > option.max()) {
      throw new IllegalArgumentException(option.key() + " must be between " + option.min()
          + " and " + option.max() + ", got '" + raw + "'");
    }
    return value;
  }

  private static boolean booleanValue(Configuration conf, Option option) {
    String raw = conf.getTrimmed(option.key(), option.defaultValue());
    if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(raw);
    }
    throw new IllegalArgumentException(option.key() + " must be true or false, got '" + raw + "'");
  }
}
