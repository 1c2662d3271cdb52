package dev.tide.shuffle.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of a {@link ShuffleServer}; immutable, validated on construction. Build with
 * {@link #builder()}; every setting has a default suited to a NodeManager. The NodeManager keys
 * and their defaults are in {@code dev.tide.shuffle.yarn.ShuffleServiceOptions}.
 *
 * @param bindHost address to bind, null for all interfaces
 * @param port TCP port, 0 for an ephemeral one
 * @param localDirs the NodeManager local dirs ({@code yarn.nodemanager.local-dirs})
 * @param ioThreads Netty event loop threads
 * @param diskThreads threads that read index files and open data files
 * @param diskQueueCapacity requests waiting for a disk thread before BUSY is answered
 * @param maxRequestFrameBytes largest request frame accepted
 * @param maxReplyBytes largest reply frame (header + data) the server will send
 * @param maxBlocksPerRequest most blocks one request may name
 * @param indexCacheBytes bytes of index offsets kept in memory
 * @param maxInFlightBytes reply bytes queued for sending over all connections before BUSY
 *     (a reply is always admitted when nothing is in flight, so progress is guaranteed)
 * @param maxInFlightBytesPerConnection reply bytes queued for sending on one connection before
 *     BUSY (same rule: admitted when the connection has nothing in flight)
 * @param maxConnections open connections; one more is answered with a handshake BUSY and closed
 * @param maxUnauthenticatedConnections open connections that have not authenticated yet (more
 *     than {@code maxConnections} counts as {@code maxConnections}); one more closes the oldest
 *     of them, so peers that never authenticate cannot take every connection
 * @param maxDirectMemoryBytes direct memory the server's buffer pool may have in use before new
 *     connections and requests are answered BUSY
 * @param directArenas direct arenas of the server's pooled allocator (bounds fragmentation)
 * @param idleTimeout a connection with no reads, no write progress and no request waiting for
 *     the disk for this long is closed
 * @param busyRetryAfter the retry-after sent with every BUSY answer
 * @param handshakeTimeout time a connection has to authenticate
 * @param useEpoll use the native epoll transport when available (NIO otherwise)
 * @param copyBelowBytes file ranges shorter than this are read into memory on a disk thread and
 *     sent from there with the reply's other short ranges in one write, instead of one
 *     {@code sendfile} each (for small blocks the system call costs more than the copy); 0 sends
 *     every range zero-copy
 * @param maxCopiedBytes bytes of such copies held at once over the server; past it, ranges go
 *     zero-copy whatever their size (so copies never take memory beyond this)
 * @param migrationMaxBytesPerSec data bytes per second this service sends when it copies map
 *     outputs to another service (MIGRATE_REQUEST)
 * @param cryptoRequired refuse clients that do not encrypt (HELLO version 1) instead of serving
 *     them in the clear; encrypting clients are served encrypted either way
 */
public record ShuffleServerConfig(String bindHost, int port, List<Path> localDirs, int ioThreads,
    int diskThreads, int diskQueueCapacity, int maxRequestFrameBytes, long maxReplyBytes,
    int maxBlocksPerRequest, long indexCacheBytes, long maxInFlightBytes,
    long maxInFlightBytesPerConnection, int maxConnections, int maxUnauthenticatedConnections,
    long maxDirectMemoryBytes, int directArenas, Duration idleTimeout, Duration busyRetryAfter, Duration handshakeTimeout,
    boolean useEpoll, int copyBelowBytes, long maxCopiedBytes, long migrationMaxBytesPerSec,
    boolean cryptoRequired) {

  public ShuffleServerConfig {
    localDirs = List.copyOf(localDirs);
    require(port >= 0 && port <= 65535, "port", port);
    require(!localDirs.isEmpty(), "localDirs", localDirs);
    require(ioThreads >= 1, "ioThreads", ioThreads);
    require(diskThreads >= 1, "diskThreads", diskThreads);
    require(diskQueueCapacity >= 1, "diskQueueCapacity", diskQueueCapacity);
    require(maxRequestFrameBytes >= 64, "maxRequestFrameBytes", maxRequestFrameBytes);
    require(maxReplyBytes >= 64 && maxReplyBytes <= Integer.MAX_VALUE, "maxReplyBytes",
        maxReplyBytes);
    require(maxBlocksPerRequest >= 1, "maxBlocksPerRequest", maxBlocksPerRequest);
    require(indexCacheBytes >= 0, "indexCacheBytes", indexCacheBytes);
    require(maxInFlightBytes >= 1, "maxInFlightBytes", maxInFlightBytes);
    require(maxInFlightBytesPerConnection >= 1, "maxInFlightBytesPerConnection",
        maxInFlightBytesPerConnection);
    require(maxConnections >= 1, "maxConnections", maxConnections);
    require(maxUnauthenticatedConnections >= 1, "maxUnauthenticatedConnections",
        maxUnauthenticatedConnections);
    maxUnauthenticatedConnections = Math.min(maxUnauthenticatedConnections, maxConnections);
    require(maxDirectMemoryBytes >= 1, "maxDirectMemoryBytes", maxDirectMemoryBytes);
    require(directArenas >= 1, "directArenas", directArenas);
    requirePositive(idleTimeout, "idleTimeout");
    require(busyRetryAfter != null && !busyRetryAfter.isNegative()
        && busyRetryAfter.toMillis() <= Integer.MAX_VALUE, "busyRetryAfter", busyRetryAfter);
    requirePositive(handshakeTimeout, "handshakeTimeout");
    require(copyBelowBytes >= 0 && copyBelowBytes <= (1 << 20), "copyBelowBytes",
        copyBelowBytes);
    require(maxCopiedBytes >= 0, "maxCopiedBytes", maxCopiedBytes);
    require(migrationMaxBytesPerSec >= 1, "migrationMaxBytesPerSec", migrationMaxBytesPerSec);
  }

  private static void requirePositive(Duration d, String name) {
    require(d != null && !d.isNegative() && !d.isZero(), name, d);
  }

  private static void require(boolean ok, String name, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid shuffle server setting " + name + ": " + value);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Mutable builder with defaults; not thread-safe. */
  public static final class Builder {
    private String bindHost;
    private int port = 7447;
    private List<Path> localDirs = List.of();
    private int ioThreads = 2;
    private int diskThreads = 2;
    private int diskQueueCapacity = 1024;
    private int maxRequestFrameBytes = 1 << 20;
    private long maxReplyBytes = 1L << 30;
    private int maxBlocksPerRequest = 10_000;
    private long indexCacheBytes = 16L << 20;
    private long maxInFlightBytes = 4L << 30;
    private long maxInFlightBytesPerConnection = 256L << 20;
    private int maxConnections = 2048;
    private int maxUnauthenticatedConnections = 1024;
    private long maxDirectMemoryBytes = 256L << 20;
    private int directArenas = 2;
    private Duration idleTimeout = Duration.ofSeconds(120);
    private Duration busyRetryAfter = Duration.ofSeconds(1);
    private Duration handshakeTimeout = Duration.ofSeconds(10);
    private boolean useEpoll;
    private int copyBelowBytes = 32 << 10;
    private long maxCopiedBytes = 32L << 20;
    private long migrationMaxBytesPerSec = 64L << 20;
    private boolean cryptoRequired;

    public Builder bindHost(String v) { bindHost = v; return this; }
    public Builder port(int v) { port = v; return this; }
    public Builder localDirs(List<Path> v) { localDirs = v; return this; }
    public Builder ioThreads(int v) { ioThreads = v; return this; }
    public Builder diskThreads(int v) { diskThreads = v; return this; }
    public Builder diskQueueCapacity(int v) { diskQueueCapacity = v; return this; }
    public Builder maxRequestFrameBytes(int v) { maxRequestFrameBytes = v; return this; }
    public Builder maxReplyBytes(long v) { maxReplyBytes = v; return this; }
    public Builder maxBlocksPerRequest(int v) { maxBlocksPerRequest = v; return this; }
    public Builder indexCacheBytes(long v) { indexCacheBytes = v; return this; }
    public Builder maxInFlightBytes(long v) { maxInFlightBytes = v; return this; }
    public Builder maxInFlightBytesPerConnection(long v) {
      maxInFlightBytesPerConnection = v;
      return this;
    }
    public Builder maxConnections(int v) { maxConnections = v; return this; }
    public Builder maxUnauthenticatedConnections(int v) {
      maxUnauthenticatedConnections = v;
      return this;
    }
    public Builder maxDirectMemoryBytes(long v) { maxDirectMemoryBytes = v; return this; }
    public Builder directArenas(int v) { directArenas = v; return this; }
    public Builder idleTimeout(Duration v) { idleTimeout = v; return this; }
    public Builder busyRetryAfter(Duration v) { busyRetryAfter = v; return this; }
    public Builder handshakeTimeout(Duration v) { handshakeTimeout = v; return this; }
    public Builder useEpoll(boolean v) { useEpoll = v; return this; }
    public Builder copyBelowBytes(int v) { copyBelowBytes = v; return this; }
    public Builder maxCopiedBytes(long v) { maxCopiedBytes = v; return this; }
    public Builder migrationMaxBytesPerSec(long v) { migrationMaxBytesPerSec = v; return this; }
    public Builder cryptoRequired(boolean v) { cryptoRequired = v; return this; }

    public ShuffleServerConfig build() {
      return new ShuffleServerConfig(bindHost, port, localDirs, ioThreads, diskThreads,
          diskQueueCapacity, maxRequestFrameBytes, maxReplyBytes, maxBlocksPerRequest,
          indexCacheBytes, maxInFlightBytes, maxInFlightBytesPerConnection, maxConnections,
          maxUnauthenticatedConnections, maxDirectMemoryBytes, directArenas, idleTimeout, busyRetryAfter, handshakeTimeout,
          useEpoll, copyBelowBytes, maxCopiedBytes, migrationMaxBytesPerSec, cryptoRequired);
    }
  }
}
