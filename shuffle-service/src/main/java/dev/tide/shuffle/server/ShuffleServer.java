package dev.tide.shuffle.server;

import dev.tide.shuffle.transport.SecureChannels;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
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
 * <p>Threads: Netty event loops for I/O, a small bounded pool for disk work (index reads, file
 * opens). {@link #start} and {@link #close} are called by one owner; the registry methods are
 * thread-safe and may be called at any time.
 */
public final class ShuffleServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleServer.class);

  private final ShuffleServerConfig config;
  private final ApplicationRegistry registry = new ApplicationRegistry();
  private final IndexCache indexCache;
  private final MapOutputResolver resolver;
  private final AtomicLong inFlightBytes = new AtomicLong();
  private EventLoopGroup bossGroup;
  private EventLoopGroup workerGroup;
  private ThreadPoolExecutor diskExecutor;
  private Channel serverChannel;
  private volatile int boundPort;

  public ShuffleServer(ShuffleServerConfig config) {
    this.config = config;
    this.indexCache = new IndexCache(config.indexCacheBytes());
    this.resolver = new MapOutputResolver(config.localDirs(), indexCache, config.maxReplyBytes());
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
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(bossGroup, workerGroup)
        .channel(channelClass)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            SecureChannels.initServer(ch, registry, config.maxRequestFrameBytes(),
                config.handshakeTimeout(), new FetchRequestHandler(registry, resolver,
                    diskExecutor, inFlightBytes, config));
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
    LOG.info("tide_shuffle listening on port {} ({}, {} io threads, {} disk threads, local dirs {},"
        + " max request {} B, max reply {} B, index cache {} B, max in flight {} B)", boundPort,
        epoll ? "epoll" : "nio", config.ioThreads(), config.diskThreads(), config.localDirs(),
        config.maxRequestFrameBytes(), config.maxReplyBytes(), config.indexCacheBytes(),
        config.maxInFlightBytes());
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
    bossGroup = null;
    workerGroup = null;
    diskExecutor = null;
    if (boundPort != 0) {
      LOG.info("tide_shuffle on port {} stopped", boundPort);
    }
    boundPort = 0;
  }
}
