package dev.tide.shuffle.yarn;

import dev.tide.shuffle.server.ShuffleServerConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The {@code tide.shuffle.*} settings the NodeManager's yarn-site.xml may carry, each with its
 * key, default and meaning in one place, and the translation into a {@link ShuffleServerConfig}.
 * Stateless.
 */
public final class ShuffleServiceOptions {
  /** One setting: key, default (as text) and what it means. */
  public record Option(String key, String defaultValue, String description) {}

  public static final Option PORT = new Option("tide.shuffle.port", "7447",
      "TCP port of the shuffle service; 0 picks an ephemeral port (tests)");
  public static final Option BIND_HOST = new Option("tide.shuffle.bindHost", "",
      "address to bind; empty for all interfaces");
  public static final Option STOP_ON_FAILURE = new Option("tide.shuffle.stopOnFailure", "false",
      "fail the NodeManager when the service cannot start (otherwise it is logged and skipped)");
  public static final Option IO_THREADS = new Option("tide.shuffle.io.threads", "2",
      "Netty event loop threads");
  public static final Option DISK_THREADS = new Option("tide.shuffle.disk.threads", "2",
      "threads reading index files and opening data files");
  public static final Option DISK_QUEUE = new Option("tide.shuffle.disk.queue", "1024",
      "requests queued for the disk threads before BUSY is answered");
  public static final Option INDEX_CACHE_BYTES = new Option("tide.shuffle.indexCache.bytes",
      "16777216", "bytes of index offsets cached in memory");
  public static final Option MAX_IN_FLIGHT_BYTES = new Option("tide.shuffle.maxInFlight.bytes",
      "4294967296", "reply bytes queued for sending before BUSY is answered");
  public static final Option MAX_REPLY_BYTES = new Option("tide.shuffle.maxReply.bytes",
      "1073741824", "largest reply (header + data) of one request");
  public static final Option MAX_BLOCKS = new Option("tide.shuffle.maxBlocksPerRequest", "10000",
      "most blocks one request may name");
  public static final Option EPOLL = new Option("tide.shuffle.epoll.enabled", "false",
      "use the native epoll transport when available");

  /** The NodeManager's local dirs (same key as YarnConfiguration.NM_LOCAL_DIRS). */
  public static final String NM_LOCAL_DIRS = "yarn.nodemanager.local-dirs";

  public static final List<Option> ALL = List.of(PORT, BIND_HOST, STOP_ON_FAILURE, IO_THREADS,
      DISK_THREADS, DISK_QUEUE, INDEX_CACHE_BYTES, MAX_IN_FLIGHT_BYTES, MAX_REPLY_BYTES,
      MAX_BLOCKS, EPOLL);

  private ShuffleServiceOptions() {}

  public static boolean stopOnFailure(Configuration conf) {
    return conf.getBoolean(STOP_ON_FAILURE.key(), Boolean.parseBoolean(STOP_ON_FAILURE.defaultValue()));
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
        .maxReplyBytes(longValue(conf, MAX_REPLY_BYTES))
        .maxBlocksPerRequest(intValue(conf, MAX_BLOCKS))
        .useEpoll(conf.getBoolean(EPOLL.key(), Boolean.parseBoolean(EPOLL.defaultValue())))
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
    String raw = conf.getTrimmed(option.key(), option.defaultValue());
    try {
      return Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option.key() + " must be an integer, got '" + raw + "'");
    }
  }

  private static long longValue(Configuration conf, Option option) {
    String raw = conf.getTrimmed(option.key(), option.defaultValue());
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option.key() + " must be an integer, got '" + raw + "'");
    }
  }
}
