package dev.tide.shuffle.server;

import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.transport.MalformedFrameException;
import dev.tide.shuffle.transport.SecureChannels;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves FETCH_REQUESTs on one authenticated connection. Checks on the event loop that the
 * request names the connection's application and that it is still registered, resolves the
 * files on a disk thread, then back on the event loop writes the reply header and the data as
 * {@link DefaultFileRegion}s (zero-copy) in one go, so replies never interleave. Every problem
 * with a request is answered with an ERROR reply; only a frame stream that cannot be
 * resynchronized closes the connection. One instance per channel.
 */
final class FetchRequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(FetchRequestHandler.class);

  private final ApplicationRegistry registry;
  private final MapOutputResolver resolver;
  private final Executor diskExecutor;
  private final AtomicLong inFlightBytes;
  private final ShuffleServerConfig config;

  FetchRequestHandler(ApplicationRegistry registry, MapOutputResolver resolver,
      Executor diskExecutor, AtomicLong inFlightBytes, ShuffleServerConfig config) {
    this.registry = registry;
    this.resolver = resolver;
    this.diskExecutor = diskExecutor;
    this.inFlightBytes = inFlightBytes;
    this.config = config;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
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
      onFetch(ctx, request);
    } else {
      reply(ctx, new ErrorReply(message.requestId(), ErrorCode.BAD_REQUEST,
          "the server accepts only FETCH_REQUEST, got type " + message.type()));
    }
  }

  private void onFetch(ChannelHandlerContext ctx, FetchRequest request) {
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
    try {
      diskExecutor.execute(() -> resolve(ctx, app.get(), request));
    } catch (RejectedExecutionException e) {
      reply(ctx, new ErrorReply(id, ErrorCode.BUSY, "shuffle service disk queue is full"));
    }
  }

  /** Runs on a disk thread. */
  private void resolve(ChannelHandlerContext ctx, RegisteredApp app, FetchRequest request) {
    if (!ctx.channel().isActive()) {
      return;
    }
    try {
      FetchPlan plan = resolver.plan(app, request.blocks());
      try {
        ctx.executor().execute(() -> send(ctx, request, plan));
      } catch (RejectedExecutionException e) {
        plan.closeAll(); // the event loop is shutting down
      }
    } catch (FetchRefusedException e) {
      LOG.info("fetch {} from {} refused ({}): {}", request.requestId(),
          ctx.channel().remoteAddress(), e.code(), e.getMessage());
      reply(ctx, new ErrorReply(request.requestId(), e.code(), e.getMessage(), e.blocks()));
    } catch (RuntimeException e) {
      LOG.error("fetch {} of application {} from {} failed", request.requestId(), app.appId(),
          ctx.channel().remoteAddress(), e);
      reply(ctx, new ErrorReply(request.requestId(), ErrorCode.INTERNAL,
          "internal error serving application " + app.appId() + ": " + e));
    }
  }

  /** Runs on the event loop; takes ownership of the plan's files. */
  private void send(ChannelHandlerContext ctx, FetchRequest request, FetchPlan plan) {
    FetchReply header = new FetchReply(request.requestId(), plan.blockLengths());
    long bytes = header.encodedLength() + plan.dataLength();
    if (!ctx.channel().isActive()) {
      plan.closeAll();
      return;
    }
    if (inFlightBytes.addAndGet(bytes) > config.maxInFlightBytes()) {
      inFlightBytes.addAndGet(-bytes);
      plan.closeAll();
      reply(ctx, new ErrorReply(request.requestId(), ErrorCode.BUSY,
          "shuffle service has too many bytes in flight; retry later"));
      return;
    }
    ChannelFuture last = ctx.write(header.headerFrame(ctx.alloc()));
    for (FetchPlan.Region r : plan.regions()) {
      // The region now owns the file channel and closes it when released.
      last = ctx.write(new DefaultFileRegion(r.file(), r.position(), r.count()));
      last.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
    last.addListener(f -> inFlightBytes.addAndGet(-bytes));
    ctx.flush();
    if (LOG.isDebugEnabled()) {
      LOG.debug("fetch {} of {}: {} blocks, {} bytes in {} regions to {}", request.requestId(),
          request.appId(), request.blocks().size(), plan.dataLength(), plan.regions().size(),
          ctx.channel().remoteAddress());
    }
  }

  private static void reply(ChannelHandlerContext ctx, ErrorReply error) {
    ctx.writeAndFlush(error.toFrame(ctx.alloc()));
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
      LOG.warn("unexpected error on connection from {}; closing", ctx.channel().remoteAddress(),
          cause);
      ctx.close();
    }
  }
}
