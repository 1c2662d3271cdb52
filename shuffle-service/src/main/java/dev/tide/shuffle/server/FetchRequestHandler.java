package dev.tide.shuffle.server;

import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.transport.HandshakeRefusedEvent;
import dev.tide.shuffle.transport.MalformedFrameException;
import dev.tide.shuffle.transport.SecureChannels;
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
 * Serves FETCH_REQUESTs on one authenticated connection. Checks on the event loop that the
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
 * limit is still served one at a time. One instance per channel; its fields are confined to
 * the channel's event loop.
 */
final class FetchRequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(FetchRequestHandler.class);

  private final ApplicationRegistry registry;
  private final MapOutputResolver resolver;
  private final ShortRangeCopier copier;
  private final Executor diskExecutor;
  private final AtomicLong serverInFlightBytes;
  private final ShuffleServerConfig config;
  private final ServerStats stats;
  private final LongSupplier directMemoryInUse;
  private final int retryAfterMillis;
  private long connectionInFlightBytes;
  private int waitingForDisk;

  FetchRequestHandler(ApplicationRegistry registry, MapOutputResolver resolver,
      ShortRangeCopier copier, Executor diskExecutor, AtomicLong serverInFlightBytes, ShuffleServerConfig config,
      ServerStats stats, LongSupplier directMemoryInUse) {
    this.registry = registry;
    this.resolver = resolver;
    this.copier = copier;
    this.diskExecutor = diskExecutor;
    this.serverInFlightBytes = serverInFlightBytes;
    this.config = config;
    this.stats = stats;
    this.directMemoryInUse = directMemoryInUse;
    this.retryAfterMillis = (int) config.busyRetryAfter().toMillis();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    long receivedNanos = System.nanoTime();
    ByteBuf body = (ByteBuf) msg;
    ShuffleMessage message;
    try {
      message = ShuffleMessages.decode(body);
    } catch (MalformedFrameException e) {
      LOG.warn("malformed request from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
      reply(ctx, new ErrorReply(-1, ErrorCode.BAD_REQUEST, e.getMessage()));
      return;
    } finally {
      body.release();
    }
    if (message instanceof FetchRequest request) {
      onFetch(ctx, request, receivedNanos);
    } else {
      reply(ctx, new ErrorReply(message.requestId(), ErrorCode.BAD_REQUEST,
          "the server accepts only FETCH_REQUEST, got type " + message.type()));
    }
  }

  private void onFetch(ChannelHandlerContext ctx, FetchRequest request, long receivedNanos) {
    String connectionApp = ctx.channel().attr(SecureChannels.APP_ID).get();
    long id = request.requestId();
    if (!request.appId().equals(connectionApp)) {
      LOG.warn("connection from {} authenticated for {} asked for data of {}; refused",
          ctx.channel().remoteAddress(), connectionApp, request.appId());
      reply(ctx, new ErrorReply(id, ErrorCode.FORBIDDEN, "this connection is authenticated for "
          + connectionApp + " and may not read data of " + request.appId()));
      return;
    }
    Optional<RegisteredApp> app = registry.lookup(connectionApp);
    if (app.isEmpty()) {
      reply(ctx, new ErrorReply(id, ErrorCode.FORBIDDEN, "application " + connectionApp
          + " is not registered with this shuffle service (finished?)"));
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
        LOG.info("fetch {} from {} refused ({}): {}", request.requestId(),
            ctx.channel().remoteAddress(), e.code(), e.getMessage());
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
      return;
    }
    send(ctx, request, plan, receivedNanos);
  }

  /** Runs on the event loop; takes ownership of the plan's files. */
  private void send(ChannelHandlerContext ctx, FetchRequest request, FetchPlan plan,
      long receivedNanos) {
    FetchReply header = new FetchReply(request.requestId(), plan.blockLengths());
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
    LOG.info("fetch {} from {} answered BUSY (retry after {} ms): {}", requestId,
        ctx.channel().remoteAddress(), retryAfterMillis, why);
    reply(ctx, ErrorReply.busy(requestId, why + "; retry later", retryAfterMillis));
  }

  private static void reply(ChannelHandlerContext ctx, ErrorReply error) {
    ctx.writeAndFlush(error.toFrame(ctx.alloc()));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      if (waitingForDisk == 0) {
        stats.idleClosed();
        LOG.info("closing connection from {} (application {}): idle for {} ms",
            ctx.channel().remoteAddress(), ctx.channel().attr(SecureChannels.APP_ID).get(),
            config.idleTimeout().toMillis());
        ctx.close();
      }
      return;
    }
    if (evt instanceof HandshakeRefusedEvent) {
      stats.authFailed();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException) {
      LOG.warn("oversized frame from {}: {}", ctx.channel().remoteAddress(), cause.getMessage());
      reply(ctx, new ErrorReply(-1, ErrorCode.BAD_REQUEST, cause.getMessage()));
    } else if (cause instanceof CorruptedFrameException) {
      LOG.warn("corrupt frame stream from {}: {}; closing", ctx.channel().remoteAddress(),
          cause.getMessage());
      ctx.writeAndFlush(new ErrorReply(-1, ErrorCode.BAD_REQUEST, cause.getMessage())
          .toFrame(ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
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
