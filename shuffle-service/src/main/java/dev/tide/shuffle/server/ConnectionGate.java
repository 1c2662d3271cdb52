package dev.tide.shuffle.server;

import dev.tide.network.SecureChannels;
import dev.tide.network.ThrottledLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.function.LongSupplier;

/**
 * First handler of every server connection: admits it if the server has fewer than
 * {@code maxConnections} open and its buffer pool is under the direct memory cap; otherwise
 * answers a handshake BUSY with the retry-after and closes, before any byte is read. Counts
 * admitted connections in {@link ServerStats} until they close, and keeps each in
 * {@link PendingHandshakes} until it authenticates ({@link #authenticated}): past
 * {@code maxUnauthenticatedConnections} the oldest unauthenticated one is closed to make room.
 * Refusals are logged aggregated. One instance per channel; runs on the channel's event loop.
 */
final class ConnectionGate extends ChannelInboundHandlerAdapter {
  private final ServerStats stats;
  private final ThrottledLog log;
  private final int maxConnections;
  private final PendingHandshakes pendingHandshakes;
  private final LongSupplier directMemoryInUse;
  private final long maxDirectMemoryBytes;
  private final int retryAfterMillis;
  private boolean admitted;
  private boolean refused;

  ConnectionGate(ServerStats stats, ShuffleServerConfig config, LongSupplier directMemoryInUse,
      PendingHandshakes pendingHandshakes, ThrottledLog log) {
    this.stats = stats;
    this.log = log;
    this.maxConnections = config.maxConnections();
    this.pendingHandshakes = pendingHandshakes;
    this.directMemoryInUse = directMemoryInUse;
    this.maxDirectMemoryBytes = config.maxDirectMemoryBytes();
    this.retryAfterMillis = (int) config.busyRetryAfter().toMillis();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    long direct = directMemoryInUse.getAsLong();
    String refusal = null;
    if (direct > maxDirectMemoryBytes) {
      refusal = "shuffle service buffers hold " + direct + " bytes of direct memory (limit "
          + maxDirectMemoryBytes + ")";
    } else if (!stats.tryOpenConnection(maxConnections)) {
      refusal = "shuffle service has " + maxConnections + " connections open (the limit)";
    }
    if (refusal != null) {
      refused = true;
      stats.connectionRefused();
      log.warn("connections refused", "refused connection from {}: {}; told to retry after {}"
          + " ms", ctx.channel().remoteAddress(), refusal, retryAfterMillis);
      SecureChannels.refuseBusy(ctx.channel(), retryAfterMillis, refusal);
      return; // the rest of the pipeline never sees this connection become active
    }
    admitted = true;
    Channel pushedOut = pendingHandshakes.admit(ctx.channel());
    if (pushedOut != null) {
      log.warn("unauthenticated connections closed to make room", "closing connection from {}:"
          + " not authenticated, the oldest of too many such connections", pushedOut
          .remoteAddress());
      pushedOut.close();
    }
    ctx.fireChannelActive();
  }

  /** The connection's handshake succeeded: it no longer counts as unauthenticated. */
  void authenticated(Channel ch) {
    pendingHandshakes.done(ch);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    pendingHandshakes.done(ctx.channel());
    if (admitted) {
      admitted = false;
      stats.connectionClosed();
    }
    ctx.fireChannelInactive();
  }
}
