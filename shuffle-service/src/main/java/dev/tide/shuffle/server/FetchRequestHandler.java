package dev.tide.shuffle.server;

import dev.tide.network.FrameDecoder;
import dev.tide.network.HandshakeCompletedEvent;
import dev.tide.network.HandshakeRefusedEvent;
import dev.tide.network.LogSafe;
import dev.tide.network.MalformedFrameException;
import dev.tide.network.SecureChannels;
import dev.tide.network.ThrottledLog;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MigrateRequest;
import dev.tide.shuffle.protocol.PushData;
import dev.tide.shuffle.protocol.PushOpen;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import dev.tide.shuffle.protocol.VerifyReply;
import dev.tide.shuffle.protocol.VerifyRequest;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves FETCH_REQUESTs (and VERIFY_REQUESTs, see {@link #onVerify}) on one authenticated
 * connection. Checks on the event loop that the
 * request names the connection's application and that it is still registered, resolves the
 * files on a disk thread (where short ranges are also read into memory, see
 * {@link ShortRangeCopier}), then back on the event loop admits the reply against the in-flight
 * limits and writes the reply header and the data as {@link CountedFileRegion}s (zero-copy) and
 * copied buffers in one go, so replies never interleave. Every problem with a request is answered with an ERROR
 * reply; the server at a limit answers BUSY with a retry-after. Only a frame stream that cannot
 * be resynchronized, an idle connection or an I/O failure closes the connection.
 *
 * <p>In-flight bytes (header + data of replies written but not yet sent) are counted per
 * connection and over the server. A reply is admitted when it fits under both limits, or when
 * the connection (respectively the server) has nothing in flight, so a reply larger than a
 * limit is still served one at a time. ERROR replies count too, from written to sent.
 *
 * <p>A peer cannot make the server hold more for it than it reads: when the connection's
 * outbound buffers pass the channel's write-buffer high-water mark (the peer is not reading
 * what was written) or {@link #MAX_WAITING_FOR_DISK} of its requests wait for the disk, the
 * server stops splitting its frames ({@link FrameDecoder#pause}) and reading from it
 * ({@code autoRead} off); what it already sent waits in the decoder (one read's worth) and is
 * handled in order once the peer has read enough. Such a connection makes no progress and is closed by the idle timeout. A connection
 * that sends {@link #MAX_BAD_FRAMES} malformed frames (unparseable, too long, not a request)
 * is closed. Lines a peer can cause per frame or per connection go through a
 * {@link ThrottledLog}, with its values escaped ({@link LogSafe}).
 *
 * <p>One instance per channel; its fields are confined to the channel's event loop.
 */
final class FetchRequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(FetchRequestHandler.class);
  /** Malformed frames a connection may send; the last one is answered and the connection closed. */
  static final int MAX_BAD_FRAMES = 8;
  /** Requests of one connection waiting for a disk thread before the server stops reading. */
  static final int MAX_WAITING_FOR_DISK = 64;
  /** Cap on the characters of a refusal's reason (e.g. a list of missing blocks) in a log line. */
  static final int MAX_LOGGED_REASON_CHARS = 500;

  private final ApplicationRegistry registry;
  private final MapOutputResolver resolver;
  private final ShortRangeCopier copier;
  private final Executor diskExecutor;
  private final AtomicLong serverInFlightBytes;
  private final ShuffleServerConfig config;
  private final ServerStats stats;
  private final LongSupplier directMemoryInUse;
  private final ThrottledLog log;
  private final int retryAfterMillis;
  private long connectionInFlightBytes;
  private int waitingForDisk;
  /** Whether frames are no longer split or read from the socket (the peer lags). */
  private boolean paused;
  private boolean closing;
  private int badFrames;
  private final Migration migration;
  /** The pushes this connection receives; made when the handler joins its channel. */
  private PushReceiver pushes;

  /**
   * What the handler needs for MIGRATE_REQUESTs and pushes, shared by the server's connections.
   *
   * @param migrator carries out MIGRATE_REQUESTs
   * @param pushFiles runs the file work of received pushes, in order (one thread)
   * @param pushQueuedBytes pushed bytes waiting to be written, over the server
   * @param maxPushQueuedBytes past it, pushes are refused BUSY
   */
  record Migration(MapOutputMigrator migrator, Executor pushFiles, AtomicLong pushQueuedBytes,
      long maxPushQueuedBytes) {}

  /** @param log where lines a peer can cause per frame or connection go (shared by the server) */
  FetchRequestHandler(ApplicationRegistry registry, MapOutputResolver resolver,
      ShortRangeCopier copier, Executor diskExecutor, AtomicLong serverInFlightBytes,
      ShuffleServerConfig config, ServerStats stats, LongSupplier directMemoryInUse,
      ThrottledLog log, Migration migration) {
    this.migration = migration;
    this.registry = registry;
    this.resolver = resolver;
    this.copier = copier;
    this.diskExecutor = diskExecutor;
    this.serverInFlightBytes = serverInFlightBytes;
    this.config = config;
    this.stats = stats;
    this.directMemoryInUse = directMemoryInUse;
    this.log = log;
    this.retryAfterMillis = (int) config.busyRetryAfter().toMillis();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    pushes = new PushReceiver(resolver, migration.pushFiles(), stats, migration.pushQueuedBytes(),
        migration.maxPushQueuedBytes(), ctx.executor(), new PushReceiver.Answers() {
          @Override
          public void reply(ShuffleMessage message) {
            FetchRequestHandler.this.reply(ctx, message);
          }

          @Override
          public void progressed() {
            resumeIfPeerCaughtUp(ctx);
          }
        }, retryAfterMillis);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf body = (ByteBuf) msg;
    if (closing) {
      body.release();
      return;
    }
    handle(ctx, body);
    pauseIfPeerLags(ctx);
  }

  /** Handles one frame body and releases it. */
  private void handle(ChannelHandlerContext ctx, ByteBuf body) {
    long receivedNanos = System.nanoTime();
    ShuffleMessage message;
    try {
      message = ShuffleMessages.decode(body);
    } catch (MalformedFrameException e) {
      badFrame(ctx, e.requestId(), e.getMessage());
      return;
    } finally {
      body.release();
    }
    if (message instanceof FetchRequest request) {
      onFetch(ctx, request, receivedNanos);
    } else if (message instanceof VerifyRequest request) {
      onVerify(ctx, request);
    } else if (message instanceof MigrateRequest request) {
      onMigrate(ctx, request);
    } else if (message instanceof PushOpen push) {
      authorized(ctx, push.requestId(), push.appId()).ifPresentOrElse(
          app -> pushes.onOpen(app, push), () -> pushes.refusedElsewhere(push.requestId()));
    } else if (message instanceof PushData piece) {
      pushes.onData(piece);
    } else {
      badFrame(ctx, message.requestId(), "the server accepts only FETCH_REQUEST,"
          + " VERIFY_REQUEST, MIGRATE_REQUEST, PUSH_OPEN and PUSH_DATA, got type "
          + Byte.toUnsignedInt(message.type()));
    }
  }

  /**
   * A MIGRATE_REQUEST: authorized as a fetch, bounded as one (map outputs per request), then
   * queued with the {@link MapOutputMigrator} (BUSY when its queue is full); its reply comes
   * back to the event loop.
   */
  private void onMigrate(ChannelHandlerContext ctx, MigrateRequest request) {
    long id = request.requestId();
    Optional<RegisteredApp> app = authorized(ctx, id, request.appId());
    if (app.isEmpty()) {
      return;
    }
    if (request.maps().size() > config.maxBlocksPerRequest()) {
      reply(ctx, new ErrorReply(id, ErrorCode.BAD_REQUEST, "request names "
          + request.maps().size() + " map outputs; the limit is " + config.maxBlocksPerRequest()));
      return;
    }
    waitingForDisk++;
    String refused = migration.migrator().submit(app.get(), request, answer -> {
      try {
        ctx.executor().execute(() -> {
          waitingForDisk--;
          reply(ctx, answer);
          resumeIfPeerCaughtUp(ctx);
        });
      } catch (RejectedExecutionException e) {
        // the event loop is shutting down: nobody to answer
      }
    });
    if (refused != null) {
      waitingForDisk--;
      busy(ctx, id, refused);
    }
  }

  /**
   * Answers a malformed frame with BAD_REQUEST; the {@link #MAX_BAD_FRAMES}th closes the
   * connection (a peer that speaks the protocol never sends one).
   */
  private void badFrame(ChannelHandlerContext ctx, long requestId, String why) {
    stats.badFrame();
    badFrames++;
    if (badFrames < MAX_BAD_FRAMES) {
      log.warn("malformed requests", "malformed request from {}: {}",
          ctx.channel().remoteAddress(), LogSafe.text(why));
      reply(ctx, new ErrorReply(requestId, ErrorCode.BAD_REQUEST, why));
      return;
    }
    log.warn("connections closed for malformed requests", "closing connection from {}"
        + " (application {}) after {} malformed frames; the last: {}",
        ctx.channel().remoteAddress(), LogSafe.text(ctx.channel().attr(SecureChannels.APP_ID)
            .get()), badFrames, LogSafe.text(why));
    closeAfter(ctx, new ErrorReply(requestId, ErrorCode.BAD_REQUEST, why + "; closing the"
        + " connection after " + badFrames + " malformed frames"));
  }

  /**
   * Writes a last reply and closes at once: the connection is not kept open for a peer that
   * may never read it, and nothing more it sent is handled.
   */
  private void closeAfter(ChannelHandlerContext ctx, ErrorReply last) {
    closing = true;
    ctx.writeAndFlush(last.toFrame(ctx.alloc()));
    ctx.close();
  }

  /**
   * Stops splitting frames and reading from a peer that is not reading its replies or has many
   * requests on the disk queue; the bytes it sent wait in the frame decoder (one read's worth).
   */
  private void pauseIfPeerLags(ChannelHandlerContext ctx) {
    if (!paused && !closing && peerLags(ctx)) {
      paused = true;
      ctx.pipeline().get(FrameDecoder.class).pause();
    }
  }

  private boolean peerLags(ChannelHandlerContext ctx) {
    return !ctx.channel().isWritable() || waitingForDisk >= MAX_WAITING_FOR_DISK
        || pushes.lagging();
  }

  /** Reads again (first what waits in the decoder) once the peer has caught up. */
  private void resumeIfPeerCaughtUp(ChannelHandlerContext ctx) {
    if (paused && !closing && !peerLags(ctx)) {
      paused = false;
      ctx.pipeline().get(FrameDecoder.class).resume();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      resumeIfPeerCaughtUp(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    pushes.closed();
    ctx.fireChannelInactive();
  }

  /**
   * The registered application a request may read: the connection's, named by the request and
   * still registered. Otherwise answers FORBIDDEN and returns empty.
   */
  private Optional<RegisteredApp> authorized(ChannelHandlerContext ctx, long id, String appId) {
    String connectionApp = ctx.channel().attr(SecureChannels.APP_ID).get();
    if (!appId.equals(connectionApp)) {
      log.warn("requests for another application's data", "connection from {} authenticated for"
          + " {} asked for data of {}; refused", ctx.channel().remoteAddress(),
          LogSafe.text(connectionApp), LogSafe.text(appId));
      reply(ctx, new ErrorReply(id, ErrorCode.FORBIDDEN, "this connection is authenticated for "
          + connectionApp + " and may not read data of " + appId));
      return Optional.empty();
    }
    Optional<RegisteredApp> app = registry.lookup(connectionApp);
    if (app.isEmpty()) {
      reply(ctx, new ErrorReply(id, ErrorCode.FORBIDDEN, "application " + connectionApp
          + " is not registered with this shuffle service (finished?)"));
    }
    return app;
  }

  private void onFetch(ChannelHandlerContext ctx, FetchRequest request, long receivedNanos) {
    long id = request.requestId();
    Optional<RegisteredApp> app = authorized(ctx, id, request.appId());
    if (app.isEmpty()) {
      return;
    }
    if (request.blocks().size() > config.maxBlocksPerRequest()) {
      reply(ctx, new ErrorReply(id, ErrorCode.BAD_REQUEST, "request names "
          + request.blocks().size() + " blocks; the limit is " + config.maxBlocksPerRequest()));
      return;
    }
    long direct = directMemoryInUse.getAsLong();
    if (direct > config.maxDirectMemoryBytes()) {
      busy(ctx, id, "shuffle service buffers hold " + direct + " bytes of direct memory (limit "
          + config.maxDirectMemoryBytes() + ")");
      return;
    }
    stats.fetchStarted();
    waitingForDisk++;
    try {
      diskExecutor.execute(() -> resolve(ctx, app.get(), request, receivedNanos));
    } catch (RejectedExecutionException e) {
      waitingForDisk--;
      stats.fetchFailed();
      busy(ctx, id, "shuffle service disk queue is full (" + config.diskQueueCapacity()
          + " requests)");
    }
  }

  /** Runs on a disk thread; hands the outcome back to the event loop. */
  private void resolve(ChannelHandlerContext ctx, RegisteredApp app, FetchRequest request,
      long receivedNanos) {
    FetchPlan plan = null;
    ErrorReply error = null;
    if (ctx.channel().isActive()) {
      try {
        plan = copier.copyShortRanges(resolver.plan(app, request.blocks()),
            ctx.alloc(), app.appId());
      } catch (FetchRefusedException e) {
        log.info("fetches refused", "fetch {} of {} from {} refused ({}): {}",
            request.requestId(), app.appId(), ctx.channel().remoteAddress(), e.code(),
            LogSafe.text(e.getMessage(), MAX_LOGGED_REASON_CHARS));
        error = new ErrorReply(request.requestId(), e.code(), e.getMessage(), e.blocks());
      } catch (RuntimeException e) {
        stats.internalError();
        LOG.error("fetch {} of application {} from {} failed", request.requestId(), app.appId(),
            ctx.channel().remoteAddress(), e);
        error = new ErrorReply(request.requestId(), ErrorCode.INTERNAL,
            "internal error serving application " + app.appId() + ": " + e);
      }
    }
    FetchPlan resolved = plan;
    ErrorReply refused = error;
    try {
      ctx.executor().execute(() -> resolved(ctx, request, resolved, refused, receivedNanos));
    } catch (RejectedExecutionException e) {
      if (resolved != null) {
        resolved.closeAll(); // the event loop is shutting down
      }
    }
  }

  /** Runs on the event loop with the disk thread's outcome (plan, error, or neither: closed). */
  private void resolved(ChannelHandlerContext ctx, FetchRequest request, FetchPlan plan,
      ErrorReply error, long receivedNanos) {
    waitingForDisk--;
    if (plan == null) {
      stats.fetchFailed();
      if (error != null) {
        reply(ctx, error);
      }
    } else {
      send(ctx, request, plan, receivedNanos);
    }
    resumeIfPeerCaughtUp(ctx);
  }

  /** Runs on the event loop; takes ownership of the plan's files. */
  private void send(ChannelHandlerContext ctx, FetchRequest request, FetchPlan plan,
      long receivedNanos) {
    FetchReply header = new FetchReply(request.requestId(), plan.blockLengths(),
        plan.blockChecksums());
    long bytes = header.encodedLength() + plan.dataLength();
    if (!ctx.channel().isActive()) {
      plan.closeAll();
      stats.fetchFailed();
      return;
    }
    String overLimit = admit(bytes);
    if (overLimit != null) {
      plan.closeAll();
      stats.fetchFailed();
      busy(ctx, request.requestId(), overLimit);
      return;
    }
    ChannelFuture last = ctx.write(header.headerFrame(ctx.alloc()));
    for (FetchPlan.Part part : plan.parts()) {
      if (part instanceof FetchPlan.FileRange r) {
        // The region now holds the file's reference and gives it back when released.
        last = ctx.write(new CountedFileRegion(r.file(), r.position(), r.count(), stats));
      } else {
        FetchPlan.Copied c = (FetchPlan.Copied) part;
        last = ctx.write(c.bytes()); // Netty releases the buffer once written
        last.addListener(f -> c.sent());
      }
      last.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
    last.addListener(f -> {
      connectionInFlightBytes -= bytes; // listeners run on the event loop
      serverInFlightBytes.addAndGet(-bytes);
      if (f.isSuccess()) {
        stats.fetchServed(request.blocks().size(), plan.dataLength(),
            System.nanoTime() - receivedNanos);
      } else {
        stats.fetchFailed();
      }
    });
    ctx.flush();
    if (LOG.isDebugEnabled()) {
      LOG.debug("fetch {} of {}: {} blocks, {} bytes in {} regions to {}", request.requestId(),
          request.appId(), request.blocks().size(), plan.dataLength(), plan.parts().size(),
          ctx.channel().remoteAddress());
    }
  }

  /**
   * A VERIFY_REQUEST: authorized as a fetch, then on a disk thread (through the same disk queue
   * and per-connection wait bound as fetches) the block is read from disk again and its CRC32C
   * computed ({@link MapOutputResolver#verify}); the bytes it reads count against the server's
   * in-flight total while it reads them. The answer is a VERIFY_REPLY or an ERROR.
   */
  private void onVerify(ChannelHandlerContext ctx, VerifyRequest request) {
    long id = request.requestId();
    Optional<RegisteredApp> app = authorized(ctx, id, request.appId());
    if (app.isEmpty()) {
      return;
    }
    long direct = directMemoryInUse.getAsLong();
    if (direct > config.maxDirectMemoryBytes()) {
      busy(ctx, id, "shuffle service buffers hold " + direct + " bytes of direct memory (limit "
          + config.maxDirectMemoryBytes() + ")");
      return;
    }
    waitingForDisk++;
    try {
      diskExecutor.execute(() -> verify(ctx, app.get(), request));
    } catch (RejectedExecutionException e) {
      waitingForDisk--;
      busy(ctx, id, "shuffle service disk queue is full (" + config.diskQueueCapacity()
          + " requests)");
    }
  }

  /** Runs on a disk thread; hands the answer back to the event loop. */
  private void verify(ChannelHandlerContext ctx, RegisteredApp app, VerifyRequest request) {
    ShuffleMessage answer = null;
    if (ctx.channel().isActive()) {
      try {
        MapOutputResolver.Verified v = resolver.verify(app, request.block(),
            this::admitRead, bytes -> serverInFlightBytes.addAndGet(-bytes));
        stats.verified(v.storedChecksum() != FetchReply.NO_CHECKSUM
            && v.storedChecksum() != v.computedChecksum());
        answer = new VerifyReply(request.requestId(), v.length(), v.computedChecksum(),
            v.storedChecksum());
      } catch (FetchRefusedException e) {
        log.info("verifies refused", "verify {} of {} from {} refused ({}): {}",
            request.requestId(), app.appId(), ctx.channel().remoteAddress(), e.code(),
            LogSafe.text(e.getMessage(), MAX_LOGGED_REASON_CHARS));
        if (e.code() == ErrorCode.BUSY) {
          stats.busyReplied();
          answer = ErrorReply.busy(request.requestId(), e.getMessage() + "; retry later",
              retryAfterMillis);
        } else {
          answer = new ErrorReply(request.requestId(), e.code(), e.getMessage(), e.blocks());
        }
      } catch (RuntimeException e) {
        stats.internalError();
        LOG.error("verify {} of application {} from {} failed", request.requestId(),
            app.appId(), ctx.channel().remoteAddress(), e);
        answer = new ErrorReply(request.requestId(), ErrorCode.INTERNAL,
            "internal error serving application " + app.appId() + ": " + e);
      }
    }
    ShuffleMessage done = answer;
    try {
      ctx.executor().execute(() -> {
        waitingForDisk--;
        if (done != null) {
          reply(ctx, done);
        }
        resumeIfPeerCaughtUp(ctx);
      });
    } catch (RejectedExecutionException e) {
      // the event loop is shutting down: nobody to answer
    }
  }

  /**
   * Reserves {@code bytes} that a verification reads under the server's in-flight total (not
   * the connection's: they never reach it); admitted alone when nothing is in flight. Any thread.
   */
  private String admitRead(long bytes) {
    while (true) {
      long now = serverInFlightBytes.get();
      if (now > 0 && now + bytes > config.maxInFlightBytes()) {
        return "shuffle service has " + now + " bytes in flight; verifying " + bytes
            + " more would exceed the limit of " + config.maxInFlightBytes();
      }
      if (serverInFlightBytes.compareAndSet(now, now + bytes)) {
        return null;
      }
    }
  }

  /** Reserves {@code bytes} under both in-flight limits; returns why not, or null if done. */
  private String admit(long bytes) {
    if (connectionInFlightBytes > 0
        && connectionInFlightBytes + bytes > config.maxInFlightBytesPerConnection()) {
      return "this connection has " + connectionInFlightBytes + " reply bytes in flight; "
          + bytes + " more would exceed the limit of " + config.maxInFlightBytesPerConnection();
    }
    while (true) {
      long now = serverInFlightBytes.get();
      if (now > 0 && now + bytes > config.maxInFlightBytes()) {
        return "shuffle service has " + now + " reply bytes in flight; " + bytes
            + " more would exceed the limit of " + config.maxInFlightBytes();
      }
      if (serverInFlightBytes.compareAndSet(now, now + bytes)) {
        break;
      }
    }
    connectionInFlightBytes += bytes;
    return null;
  }

  private void busy(ChannelHandlerContext ctx, long requestId, String why) {
    stats.busyReplied();
    log.info("BUSY answers", "request {} from {} answered BUSY (retry after {} ms): {}", requestId,
        ctx.channel().remoteAddress(), retryAfterMillis, why);
    reply(ctx, ErrorReply.busy(requestId, why + "; retry later", retryAfterMillis));
  }

  /**
   * Writes a small reply (ERROR, VERIFY_REPLY), counted in flight (connection and server) until
   * it is sent.
   */
  private void reply(ChannelHandlerContext ctx, ShuffleMessage message) {
    ByteBuf frame = message.toFrame(ctx.alloc());
    long bytes = frame.readableBytes();
    connectionInFlightBytes += bytes;
    serverInFlightBytes.addAndGet(bytes);
    ctx.writeAndFlush(frame).addListener(f -> {
      connectionInFlightBytes -= bytes; // listeners run on the event loop
      serverInFlightBytes.addAndGet(-bytes);
    });
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      if (waitingForDisk == 0) {
        stats.idleClosed();
        log.info("idle connections closed", "closing connection from {} (application {}): idle"
            + " for {} ms{}", ctx.channel().remoteAddress(),
            LogSafe.text(ctx.channel().attr(SecureChannels.APP_ID).get()),
            config.idleTimeout().toMillis(), paused ? " (not reading its replies)" : "");
        closing = true;
        ctx.close();
      }
      return;
    }
    if (evt instanceof HandshakeRefusedEvent) {
      stats.authFailed();
    } else if (evt instanceof HandshakeCompletedEvent) {
      ConnectionGate gate = ctx.pipeline().get(ConnectionGate.class);
      if (gate != null) {
        gate.authenticated(ctx.channel());
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (closing) {
      return;
    }
    if (cause instanceof TooLongFrameException) {
      badFrame(ctx, -1, cause.getMessage());
    } else if (cause instanceof CorruptedFrameException) {
      stats.badFrame();
      log.warn("corrupt frame streams", "corrupt frame stream from {}: {}; closing",
          ctx.channel().remoteAddress(), LogSafe.text(cause.getMessage()));
      closeAfter(ctx, new ErrorReply(-1, ErrorCode.BAD_REQUEST, cause.getMessage()));
    } else if (cause instanceof IOException) {
      LOG.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    } else {
      stats.internalError();
      LOG.warn("unexpected error on connection from {}; closing", ctx.channel().remoteAddress(),
          cause);
      ctx.close();
    }
  }
}
