package dev.tide.shuffle.server;

import dev.tide.network.SecureChannels;
import dev.tide.network.ThrottledLog;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tide shuffle server: accepts connections, authenticates each for one registered
 * application ({@link SecureChannels}), and serves FETCH_REQUESTs for that application's map
 * output from the NodeManager local dirs. Knows nothing of YARN; the NodeManager adapter feeds
 * {@link #registerApplication} / {@link #removeApplication}.
 *
 * <p>Limits: at most {@code maxConnections} connections ({@link ConnectionGate}), reply bytes in
 * flight capped per connection and in total ({@link FetchRequestHandler}), idle connections
 * closed, and the server's own pooled allocator ({@code directArenas} direct arenas, no heap
 * arenas) whose direct memory in use is checked against {@code maxDirectMemoryBytes} before a
 * connection or request is admitted. Over a limit the answer is BUSY with a retry-after.
 * Connections that have not authenticated accept only handshake-sized frames and are capped
 * apart (past the cap the oldest is closed, {@link PendingHandshakes}); a peer that does not read its replies is no longer read from once its connection
 * holds {@link #WRITE_BUFFER_HIGH_BYTES} of unsent buffers ({@link FetchRequestHandler}).
 *
 * <p>Log lines that peers can cause per connection or frame (refusals, malformed requests,
 * BUSY, idle closes) are aggregated per kind: at most one line and one count line per
 * {@link #LOG_INTERVAL}; the metrics keep exact counts.
 *
 * <p>Threads: Netty event loops for I/O, a small bounded pool for disk work (index reads, file
 * opens). {@link #start} and {@link #close} are called by one owner; the registry methods are
 * thread-safe and may be called at any time.
 */
public final class ShuffleServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleServer.class);

  /** Unsent buffers (headers, errors, copied ranges) of a connection that make it unwritable. */
  static final int WRITE_BUFFER_HIGH_BYTES = 64 << 10;
  static final int WRITE_BUFFER_LOW_BYTES = 32 << 10;
  /** Interval of the aggregated log lines. */
  static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

  private final ShuffleServerConfig config;
  private final ThrottledLog connectionLog = new ThrottledLog(
      LoggerFactory.getLogger(ConnectionGate.class), LOG_INTERVAL, System::nanoTime);
  private final ThrottledLog requestLog = new ThrottledLog(
      LoggerFactory.getLogger(FetchRequestHandler.class), LOG_INTERVAL, System::nanoTime);
  private final ThrottledLog handshakeLog = new ThrottledLog(
      LoggerFactory.getLogger("dev.tide.network.ServerHandshakeHandler"), LOG_INTERVAL,
      System::nanoTime);
  private final ApplicationRegistry registry = new ApplicationRegistry();
  private final IndexCache indexCache;
  private final MapOutputResolver resolver;
  /**
   * Data files kept open between replies when no reply reads them (least recently used closed
   * first): enough for a reducer wave over a thousand maps, well under a NodeManager's usual
   * file-descriptor limit.
   */
  static final int IDLE_OPEN_FILES = 1024;
  private final DataFiles dataFiles;
  private final ShortRangeCopier copier;
  private final AtomicLong inFlightBytes = new AtomicLong();
  private final ServerStats stats;
  private final PendingHandshakes pendingHandshakes;
  private final PooledByteBufAllocator allocator;
  private volatile String transport = "none";
  private EventLoopGroup bossGroup;
  private EventLoopGroup workerGroup;
  private ThreadPoolExecutor diskExecutor;
  /** Carries out MIGRATE_REQUESTs (copies to other services); made at start. */
  private MapOutputMigrator migrator;
  /** Writes received pushes, in order, on one thread; made at start. */
  private java.util.concurrent.ExecutorService pushFiles;
  private final AtomicLong pushQueuedBytes = new AtomicLong();
  /** Pushed bytes waiting to be written over the server before pushes are answered BUSY. */
  static final long MAX_PUSH_QUEUED_BYTES = 64L << 20;
  private final java.util.function.Function<ApplicationRegistry.RegisteredApp,
      dev.tide.shuffle.client.ShuffleClient> migrationClients;
  private Channel serverChannel;
  private volatile int boundPort;

  public ShuffleServer(ShuffleServerConfig config) {
    this(config, new ServerStats());
  }

  /** @param stats where the server counts what it does (the NodeManager adapter's metrics) */
  public ShuffleServer(ShuffleServerConfig config, ServerStats stats) {
    // Pushes to another service always encrypt: both ends speak the migration messages, so
    // both know encryption, and the target may require it (tide.shuffle.crypto.required).
    this(config, stats, app -> new dev.tide.shuffle.client.ShuffleClient(app.appId(),
        app.secret(), dev.tide.shuffle.client.ShuffleClientConfig.DEFAULTS.withEncryption(true)));
  }

  /**
   * @param migrationClients makes the client through which this service pushes an
   *     application's map outputs to another service (authenticated with its secret)
   */
  ShuffleServer(ShuffleServerConfig config, ServerStats stats,
      java.util.function.Function<ApplicationRegistry.RegisteredApp,
          dev.tide.shuffle.client.ShuffleClient> migrationClients) {
    this.migrationClients = migrationClients;
    this.config = config;
    this.stats = stats;
    this.pendingHandshakes = new PendingHandshakes(config.maxUnauthenticatedConnections(), stats);
    this.indexCache = new IndexCache(config.indexCacheBytes());
    this.dataFiles = new DataFiles(IDLE_OPEN_FILES, stats);
    this.copier = new ShortRangeCopier(config.copyBelowBytes(), config.maxCopiedBytes());
    this.resolver = new MapOutputResolver(config.localDirs(), indexCache, config.maxReplyBytes(),
        dataFiles, System::currentTimeMillis);
    // Our own pool, not Netty's shared default: a bounded number of direct arenas (heap buffers
    // unpooled), 8 KiB pages, 4 MiB chunks, small thread caches. Only headers, error replies
    // and partly received request frames live in it; data goes zero-copy from the files.
    this.allocator = new PooledByteBufAllocator(true, 0, config.directArenas(), 8192, 9, 64, 16,
        false);
  }

  /**
   * Binds the port and starts serving.
   *
   * @throws IOException naming the address if the port cannot be bound
   */
  public synchronized void start() throws IOException {
    if (serverChannel != null) {
      throw new IllegalStateException("shuffle server already started on port " + boundPort);
    }
    boolean epoll = config.useEpoll() && Epoll.isAvailable();
    Class<? extends ServerChannel> channelClass;
    if (epoll) {
      bossGroup = new EpollEventLoopGroup(1, new DefaultThreadFactory("tide-shuffle-accept", true));
      workerGroup = new EpollEventLoopGroup(config.ioThreads(),
          new DefaultThreadFactory("tide-shuffle-io", true));
      channelClass = EpollServerSocketChannel.class;
    } else {
      if (config.useEpoll()) {
        LOG.warn("native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
      }
      bossGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("tide-shuffle-accept", true));
      workerGroup = new NioEventLoopGroup(config.ioThreads(),
          new DefaultThreadFactory("tide-shuffle-io", true));
      channelClass = NioServerSocketChannel.class;
    }
    diskExecutor = new ThreadPoolExecutor(config.diskThreads(), config.diskThreads(), 60,
        TimeUnit.SECONDS, new ArrayBlockingQueue<>(config.diskQueueCapacity()),
        new DefaultThreadFactory("tide-shuffle-disk", true), new ThreadPoolExecutor.AbortPolicy());
    migrator = new MapOutputMigrator(resolver, stats,
        MigrationThrottle.realTime(config.migrationMaxBytesPerSec(), stats), migrationClients,
        System::nanoTime, config.maxRequestFrameBytes());
    pushFiles = java.util.concurrent.Executors.newSingleThreadExecutor(
        new DefaultThreadFactory("tide-shuffle-push", true));
    FetchRequestHandler.Migration migration = new FetchRequestHandler.Migration(migrator,
        pushFiles, pushQueuedBytes, MAX_PUSH_QUEUED_BYTES);
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(bossGroup, workerGroup)
        .channel(channelClass)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.ALLOCATOR, allocator)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
            new WriteBufferWaterMark(WRITE_BUFFER_LOW_BYTES, WRITE_BUFFER_HIGH_BYTES))
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast("tide-gate", new ConnectionGate(stats, config,
                ShuffleServer.this::directMemoryInUse, pendingHandshakes, connectionLog));
            // observeOutput: a slow reader whose reply is still draining is not idle.
            ch.pipeline().addLast("tide-idle", new IdleStateHandler(true, 0, 0,
                config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
            SecureChannels.initServer(ch, registry, config.maxRequestFrameBytes(),
                config.handshakeTimeout(), handshakeLog, config.cryptoRequired(),
                new FetchRequestHandler(registry,
                    resolver, copier, diskExecutor, inFlightBytes, config, stats,
                    ShuffleServer.this::directMemoryInUse, requestLog, migration));
          }
        });
    InetSocketAddress address = config.bindHost() == null
        ? new InetSocketAddress(config.port())
        : new InetSocketAddress(config.bindHost(), config.port());
    try {
      serverChannel = bootstrap.bind(address).syncUninterruptibly().channel();
    } catch (Exception e) {
      close();
      throw new IOException("tide_shuffle cannot bind " + address + ": " + e.getMessage(), e);
    }
    boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    bossGroup.scheduleAtFixedRate(this::flushLogs, LOG_INTERVAL.toMillis(),
        LOG_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    transport = epoll ? "epoll" : "nio";
    LOG.info("tide_shuffle listening on port {} ({}, {} io threads, {} disk threads, local dirs {},"
        + " max request {} B, max reply {} B, index cache {} B, max in flight {} B total and {} B"
        + " per connection, max {} connections ({} unauthenticated), max direct memory {} B in"
        + " {} arenas,"
        + " idle timeout {} ms, BUSY retry-after {} ms, migration {} B/s)", boundPort, transport,
        config.ioThreads(), config.diskThreads(), config.localDirs(),
        config.maxRequestFrameBytes(), config.maxReplyBytes(), config.indexCacheBytes(),
        config.maxInFlightBytes(), config.maxInFlightBytesPerConnection(),
        config.maxConnections(), config.maxUnauthenticatedConnections(),
        config.maxDirectMemoryBytes(), config.directArenas(),
        config.idleTimeout().toMillis(), config.busyRetryAfter().toMillis(),
        config.migrationMaxBytesPerSec());
  }

  /** Writes the counts of aggregated log lines whose interval ended. */
  private void flushLogs() {
    connectionLog.flush();
    handshakeLog.flush();
    requestLog.flush();
  }

  /** "epoll" or "nio" once started, "none" before. */
  public String transport() {
    return transport;
  }

  /** What the server has done and holds; live, thread-safe. */
  public ServerStats stats() {
    return stats;
  }

  /** Bytes of index offsets cached now. */
  public long indexCacheBytes() {
    return indexCache.bytes();
  }

  /** Reply bytes written and not yet sent, over all connections. */
  public long inFlightBytes() {
    return inFlightBytes.get();
  }

  /** Direct memory held by buffers in use from the server's pool (approximate). */
  public long directMemoryInUse() {
    return allocator.pinnedDirectMemory();
  }

  /** The bound port; 0 before {@link #start}. */
  public int port() {
    return boundPort;
  }

  public void registerApplication(String appId, String user, byte[] secret) {
    registry.register(appId, user, secret);
  }

  /** Forgets the application: new handshakes and requests for it are refused. */
  public void removeApplication(String appId) {
    registry.remove(appId);
    indexCache.removeApplication(appId);
    resolver.forgetApplication(appId);
    dataFiles.forgetApplication(appId);
  }

  /** The registered applications (for persisting them across NodeManager restarts). */
  public java.util.List<ApplicationRegistry.RegisteredApp> registeredApplications() {
    return registry.snapshot();
  }

  public boolean isRegistered(String appId) {
    return registry.lookup(appId).isPresent();
  }

  /** Stops accepting, closes connections and releases threads; safe to call twice. */
  @Override
  public synchronized void close() {
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
      serverChannel = null;
    }
    if (bossGroup != null) {
      bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
    if (workerGroup != null) {
      workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (bossGroup != null) {
      bossGroup.terminationFuture().syncUninterruptibly();
    }
    if (diskExecutor != null) {
      diskExecutor.shutdownNow();
    }
    if (migrator != null) {
      migrator.close();
    }
    if (pushFiles != null) {
      pushFiles.shutdown(); // what is queued discards or commits its files, then the thread ends
    }
    dataFiles.closeIdle();
    flushLogs();
    bossGroup = null;
    workerGroup = null;
    diskExecutor = null;
    migrator = null;
    pushFiles = null;
    if (boundPort != 0) {
      LOG.info("tide_shuffle on port {} stopped", boundPort);
    }
    boundPort = 0;
    transport = "none";
  }
}
