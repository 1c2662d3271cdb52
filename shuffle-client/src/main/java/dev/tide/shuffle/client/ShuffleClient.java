package dev.tide.shuffle.client;

import dev.tide.network.HandshakeException;
import dev.tide.network.SecureChannels;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import dev.tide.shuffle.protocol.MigrateRequest;
import dev.tide.shuffle.protocol.PushReply;
import dev.tide.shuffle.protocol.VerifyReply;
import dev.tide.shuffle.protocol.VerifyRequest;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Fetches map output segments from {@code tide_shuffle} services for one application,
 * authenticating every connection with the application's secret. Thread-safe: one connection
 * per service (host:port) is opened on first use, kept, and shared by concurrent fetches
 * (replies are matched by request id); a broken connection is replaced on the next fetch.
 *
 * <p>Errors: connection refused -> CONNECT, handshake refused -> AUTH, a request for an
 * application the connection may not read -> AUTH, missing or truncated map output ->
 * NOT_FOUND (then {@link ShuffleFetchException#blocks()} lists the blocks whose map output is
 * gone), no data for the read timeout -> TIMEOUT, server at its limits -> BUSY.
 *
 * <p>BUSY: a server at one of its limits answers BUSY with a retry-after, either to a request or
 * to a new connection. The fetch then waits (on the calling thread) for the larger of the
 * server's retry-after and an exponential backoff (100 ms doubling), capped at
 * {@link ShuffleClientConfig#maxBusyBackoff()} plus up to 20 % jitter, and tries again, at most
 * {@link ShuffleClientConfig#busyRetries()} times; then it fails with BUSY.
 *
 * <p>Connect failures: a fetch whose connection is refused, cannot be made within the connect
 * timeout, or is closed during the handshake or the request is tried again on a new connection
 * (fetches are idempotent) after {@link ShuffleClientConfig#connectBackoff()} (200 ms), doubling
 * for each further retry, capped and jittered as for BUSY, at most
 * {@link ShuffleClientConfig#connectRetries()} (3) times. Then it fails with CONNECT and a
 * message naming the number of attempts and host:port; the driver treats that as the loss of
 * every map output on that service and reruns those maps. The BUSY and connect counts are
 * separate, so a fetch ends after a bounded number of attempts either way.
 *
 * <p>The waits happen on the calling thread (tests can replace how it waits).
 */
public final class ShuffleClient implements AutoCloseable {
  /**
   * A {@link BlockReader}'s offloaded work waiting beyond this many bytes pauses the reading of
   * its connection ({@link BlockReader.Offload}).
   */
  public static final long OFFLOAD_PAUSE_BYTES = 2L << 20;
  private static final AttributeKey<Future<Void>> HANDSHAKE =
      AttributeKey.valueOf("tide.shuffle.handshake");

  private final String appId;
  private final byte[] secret;
  private final ShuffleClientConfig config;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final Map<String, CompletableFuture<Channel>> connections = new ConcurrentHashMap<>();
  private final AtomicLong nextRequestId = new AtomicLong(1);
  private final Pause pause;
  private volatile boolean closed;

  /** How the calling thread waits before a retry; tests can watch or shorten the waits. */
  @FunctionalInterface
  interface Pause {
    void pause(long millis) throws InterruptedException;
  }

  public ShuffleClient(String appId, byte[] secret) {
    this(appId, secret, ShuffleClientConfig.DEFAULTS);
  }

  public ShuffleClient(String appId, byte[] secret, ShuffleClientConfig config) {
    this(appId, secret, config, Thread::sleep);
  }

  ShuffleClient(String appId, byte[] secret, ShuffleClientConfig config, Pause pause) {
    if (appId == null || appId.isEmpty() || secret == null || secret.length == 0) {
      throw new IllegalArgumentException("a shuffle client needs an application id and a secret");
    }
    this.appId = appId;
    this.secret = secret.clone();
    this.config = config;
    this.pause = pause;
    this.group = new NioEventLoopGroup(config.ioThreads(),
        new DefaultThreadFactory("tide-shuffle-client", true));
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast("idle", new IdleStateHandler(0, 0,
                config.readTimeout().toMillis(), TimeUnit.MILLISECONDS));
            Future<Void> handshake = SecureChannels.initClient(ch, ShuffleClient.this.appId,
                ShuffleClient.this.secret, config.maxReplyBytes(), config.handshakeTimeout(),
                config.encrypt(), new FetchResponseHandler());
            ch.attr(HANDSHAKE).set(handshake);
          }
        });
  }

  /**
   * Fetches {@code blocks} from the service at host:port in one request.
   *
   * @return the bytes of each block (its segments concatenated), in the order asked
   * @throws ShuffleFetchException naming the server, the blocks and the reason
   */
  public List<byte[]> fetch(String host, int port, List<BlockId> blocks)
      throws ShuffleFetchException {
    checkOpen();
    if (blocks.isEmpty()) {
      return List.of();
    }
    return fetchWithRetries(host, port, blocks, () -> fetching(blocks, new ReplySink.ByteArrays()));
  }

  /**
   * Fetches {@code blocks} from the service at host:port in one request, handing their bytes to
   * {@code reader} as they arrive from the network (no copy into arrays; see
   * {@link BlockReader}). Returns once the whole reply was read. Retries as
   * {@link #fetch(String, int, List)} does while nothing of the reply has reached the reader; a
   * connection lost in the middle of the reply fails the fetch (CONNECT) without a retry.
   *
   * @throws ShuffleFetchException naming the server, the blocks and the reason
   */
  public void fetch(String host, int port, List<BlockId> blocks, BlockReader reader)
      throws ShuffleFetchException {
    checkOpen();
    if (blocks.isEmpty()) {
      return;
    }
    CallerRunsQueue offload = new CallerRunsQueue(OFFLOAD_PAUSE_BYTES);
    ReplySink.Reader sink = new ReplySink.Reader(reader, offload);
    fetchWithRetries(host, port, blocks,
        () -> fetching(blocks, sink, reply -> await(offload.runUntilDone(reply))));
  }

  /**
   * Asks the service at host:port to read {@code block} from its disk again and compute its
   * CRC32C now (VERIFY_REQUEST): what a reducer does when a fetched block fails its checksum, to
   * learn whether the disk or the way there damaged it ({@link CorruptBlockDiagnosis}). Retried
   * on BUSY and connect failures as a fetch is.
   *
   * @throws ShuffleFetchException naming the server and the block: CORRUPT when the service
   *     finds the map output's index or data file damaged, NOT_FOUND, PROTOCOL (a service that
   *     does not know the request answers BAD_REQUEST), ...
   */
  public VerifyReply verify(String host, int port, BlockId block) throws ShuffleFetchException {
    checkOpen();
    return fetchWithRetries(host, port, List.of(block), () -> new Exchange<>() {
      @Override
      public CompletableFuture<VerifyReply> send(FetchResponseHandler handler, long requestId) {
        return handler.verify(new VerifyRequest(requestId, appId, block));
      }

      @Override
      public boolean started() {
        return false;
      }
    });
  }

  /**
   * Asks the service at host:port (MIGRATE_REQUEST) to copy the application's map outputs
   * {@code maps} to the service at {@code targetHost:targetPort}, starting no copy after
   * {@code timeoutMillis}; returns once it answered which ones the target confirmed. Retried on
   * BUSY and connect failures as a fetch is (a copy made twice is harmless: the target keeps the
   * first). The connection's read timeout should exceed {@code timeoutMillis}.
   *
   * @throws ShuffleFetchException naming the server: AUTH, PROTOCOL (a service that predates
   *     the request answers BAD_REQUEST), BUSY, CONNECT, TIMEOUT, ...
   */
  public MigrateReply migrate(String host, int port, String targetHost, int targetPort,
      long timeoutMillis, List<MapOutputId> maps) throws ShuffleFetchException {
    checkOpen();
    return fetchWithRetries(host, port, List.of(), () -> new Exchange<>() {
      @Override
      public CompletableFuture<MigrateReply> send(FetchResponseHandler handler, long requestId) {
        return handler.call(new MigrateRequest(requestId, appId, targetHost, targetPort,
            timeoutMillis, maps), MigrateReply.class);
      }

      @Override
      public boolean started() {
        return false;
      }
    });
  }

  /**
   * Pushes one map output of the application to the service at host:port (PUSH_OPEN, then its
   * data in PUSH_DATA pieces of at most {@code pieceBytes}, each after {@code throttle} allowed
   * its bytes and after the previous piece reached the socket); returns once the service
   * confirmed that it verified and committed it. Retried on BUSY and connect failures only
   * before any data was sent.
   *
   * @param index the map output's index file as its map task wrote it
   * @param data the data file's bytes, {@code dataLength} of them
   * @throws ShuffleFetchException naming the service: CORRUPT (a checksum failed on arrival),
   *     AUTH (the service does not know the application), CONNECT, ...
   */
  public PushReply push(String host, int port, int shuffleId, int mapId, long dataLength,
      byte[] index, PushExchange.Source data, int pieceBytes, PushExchange.Throttle throttle)
      throws ShuffleFetchException {
    checkOpen();
    return fetchWithRetries(host, port, List.of(), () -> new PushExchange(appId, shuffleId,
        mapId, dataLength, index, data, pieceBytes, throttle));
  }

  /**
   * One request and where its reply goes: sent once per attempt; {@link #started()} tells
   * whether part of the reply already reached the caller (then it is not retried).
   */
  interface Exchange<T> {
    CompletableFuture<T> send(FetchResponseHandler handler, long requestId);

    boolean started();

    /** Waits for the reply (a reader's exchange runs its offloaded work meanwhile). */
    default T await(CompletableFuture<T> reply) throws FetchFailure {
      return ShuffleClient.await(reply);
    }
  }

  /** How a fetch waits for its reply. */
  private interface ReplyWait<T> {
    T await(CompletableFuture<T> reply) throws FetchFailure;
  }

  private <T> Exchange<T> fetching(List<BlockId> blocks, ReplySink<T> sink) {
    return fetching(blocks, sink, ShuffleClient::await);
  }

  private <T> Exchange<T> fetching(List<BlockId> blocks, ReplySink<T> sink, ReplyWait<T> wait) {
    return new Exchange<>() {
      @Override
      public T await(CompletableFuture<T> reply) throws FetchFailure {
        return wait.await(reply);
      }

      @Override
      public CompletableFuture<T> send(FetchResponseHandler handler, long requestId) {
        return handler.send(new FetchRequest(requestId, appId, blocks), sink);
      }

      @Override
      public boolean started() {
        return sink.started();
      }
    };
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("shuffle client of application " + appId + " is closed");
    }
  }

  private <T> T fetchWithRetries(String host, int port, List<BlockId> blocks,
      Supplier<Exchange<T>> exchanges) throws ShuffleFetchException {
    int busyRetried = 0;
    int connectFailures = 0;
    long waitedMillis = 0;
    while (true) {
      long wait;
      Exchange<T> exchange = exchanges.get();
      try {
        return fetchOnce(host, port, blocks, exchange);
      } catch (ShuffleFetchException e) {
        if (closed || exchange.started()) {
          throw e; // part of the reply already reached the caller's reader
        }
        if (e.reason() == Reason.BUSY) {
          if (busyRetried >= config.busyRetries()) {
            throw busyRetried == 0 ? e : new ShuffleFetchException(host, port, blocks,
                Reason.BUSY, "still busy after " + busyRetried + " retries: " + busyDetail(e),
                e.getCause());
          }
          wait = busyBackoffMillis(busyRetried++, busyRetryAfter(e));
        } else if (e.reason() == Reason.CONNECT) {
          connectFailures++;
          if (connectFailures > config.connectRetries()) {
            throw new ShuffleFetchException(host, port, blocks, Reason.CONNECT,
                "gave up after " + connectFailures + (connectFailures == 1 ? " attempt" : " attempts")
                    + " (" + waitedMillis + " ms of backoff between them); last: " + e.detail(),
                e.getCause());
          }
          wait = connectBackoffMillis(connectFailures - 1);
        } else {
          throw e;
        }
      }
      try {
        pause.pause(wait);
        waitedMillis += wait;
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new ShuffleFetchException(host, port, blocks, Reason.TIMEOUT,
            "interrupted while backing off before retrying", ie);
      }
    }
  }

  /** The wait before BUSY retry number {@code attempt + 1}: see the class comment. */
  long busyBackoffMillis(int attempt, int retryAfterMillis) {
    return backoffMillis(100, attempt, retryAfterMillis);
  }

  /** The wait before connect retry number {@code attempt + 1}: see the class comment. */
  long connectBackoffMillis(int attempt) {
    return backoffMillis(config.connectBackoff().toMillis(), attempt, 0);
  }

  /**
   * {@code max(first * 2^attempt, retryAfterMillis)}, capped at
   * {@link ShuffleClientConfig#maxBusyBackoff()}, plus up to 20 % random jitter so clients
   * refused together do not come back together.
   */
  private long backoffMillis(long firstMillis, int attempt, int retryAfterMillis) {
    int doublings = Math.min(attempt, 16);
    long exponential = firstMillis > (Long.MAX_VALUE >> doublings)
        ? Long.MAX_VALUE : firstMillis << doublings;
    long base = Math.min(Math.max(exponential, retryAfterMillis),
        config.maxBusyBackoff().toMillis());
    return base + ThreadLocalRandom.current().nextLong(base / 5 + 1);
  }

  private static String busyDetail(ShuffleFetchException e) {
    return e.getCause() == null ? e.detail() : e.getCause().getMessage();
  }

  private static int busyRetryAfter(ShuffleFetchException e) {
    Throwable c = e.getCause();
    if (c instanceof FetchFailure f) {
      return f.retryAfterMillis();
    }
    if (c instanceof HandshakeException h) {
      return h.retryAfterMillis();
    }
    return 0;
  }

  /**
   * One attempt. A kept connection can be closed by the server (idle timeout) just as a request
   * goes out; a CONNECT failure on a connection that was already open is therefore retried once
   * on a new one (fetches are idempotent).
   */
  private <T> T fetchOnce(String host, int port, List<BlockId> blocks, Exchange<T> exchange)
      throws ShuffleFetchException {
    CompletableFuture<Channel> kept = connections.get(host + ":" + port);
    Channel keptChannel = kept == null ? null : kept.getNow(null);
    try {
      return fetchOn(host, port, blocks, exchange);
    } catch (ShuffleFetchException e) {
      if (e.reason() != Reason.CONNECT || keptChannel == null || closed || exchange.started()) {
        throw e;
      }
      return fetchOn(host, port, blocks, exchange);
    }
  }

  private <T> T fetchOn(String host, int port, List<BlockId> blocks, Exchange<T> exchange)
      throws ShuffleFetchException {
    try {
      Channel ch = await(connection(host, port));
      FetchResponseHandler handler = ch.pipeline().get(FetchResponseHandler.class);
      if (handler == null) {
        throw new FetchFailure(Reason.CONNECT, "connection closed", List.of(), null);
      }
      return exchange.await(exchange.send(handler, nextRequestId.getAndIncrement()));
    } catch (FetchFailure f) {
      List<BlockId> named = (f.reason() == Reason.NOT_FOUND || f.reason() == Reason.CORRUPT)
          && !f.blocks().isEmpty()
          ? f.blocks() : blocks;
      // A BUSY failure keeps itself as the cause, so the retry loop can read the retry-after.
      Throwable cause = f.reason() == Reason.BUSY && f.getCause() == null ? f : f.getCause();
      throw new ShuffleFetchException(host, port, named, f.reason(), f.getMessage(), cause);
    }
  }

  private CompletableFuture<Channel> connection(String host, int port) {
    String key = host + ":" + port;
    while (true) {
      CompletableFuture<Channel> existing = connections.get(key);
      if (existing != null) {
        Channel ch = existing.getNow(null);
        if (ch == null && existing.isCompletedExceptionally()) {
          connections.remove(key, existing);
          continue;
        }
        if (ch == null || ch.isActive()) {
          return existing;
        }
        connections.remove(key, existing);
        continue;
      }
      CompletableFuture<Channel> created = new CompletableFuture<>();
      if (connections.putIfAbsent(key, created) != null) {
        continue;
      }
      created.whenComplete((c, e) -> {
        if (e != null) {
          connections.remove(key, created);
        }
      });
      connect(host, port, key, created);
      return created;
    }
  }

  private void connect(String host, int port, String key, CompletableFuture<Channel> result) {
    ChannelFuture connect = bootstrap.connect(host, port);
    connect.addListener(cf -> {
      if (!cf.isSuccess()) {
        result.completeExceptionally(new FetchFailure(Reason.CONNECT, "cannot connect: "
            + describe(cf.cause()), List.of(), cf.cause()));
        return;
      }
      Channel ch = connect.channel();
      ch.closeFuture().addListener(x -> connections.remove(key, result));
      ch.attr(HANDSHAKE).get().addListener(hf -> {
        if (hf.isSuccess()) {
          result.complete(ch);
        } else {
          result.completeExceptionally(handshakeFailure(hf.cause()));
        }
      });
    });
  }

  private static FetchFailure handshakeFailure(Throwable cause) {
    Reason reason = Reason.PROTOCOL;
    if (cause instanceof HandshakeException h) {
      reason = switch (h.kind()) {
        case REJECTED -> Reason.AUTH;
        case TIMEOUT -> Reason.TIMEOUT;
        case CLOSED -> Reason.CONNECT;
        case PROTOCOL -> Reason.PROTOCOL;
        case BUSY -> Reason.BUSY;
      };
    }
    return new FetchFailure(reason, cause.getMessage(), List.of(), cause);
  }

  private static String describe(Throwable t) {
    return t instanceof ConnectException ? String.valueOf(t.getMessage()) : String.valueOf(t);
  }

  private static <T> T await(CompletableFuture<T> future) throws FetchFailure {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FetchFailure(Reason.TIMEOUT, "interrupted while waiting", List.of(), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FetchFailure f) {
        throw f;
      }
      throw new FetchFailure(Reason.PROTOCOL, String.valueOf(e.getCause()), List.of(), e.getCause());
    }
  }

  /** Closes every connection and stops the client's threads. */
  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<Channel> f : connections.values()) {
      Channel ch = f.getNow(null);
      if (ch != null) {
        ch.close();
      }
    }
    connections.clear();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
