package dev.tide.shuffle.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Client side of the handshake: sends HELLO when the channel is active, answers the CHALLENGE,
 * verifies the server's proof in OK, then completes {@code done}, fires
 * {@link HandshakeCompletedEvent} and removes itself. Any REJECT, close, timeout or error fails
 * {@code done} with a {@link HandshakeException} and closes the channel.
 * One instance per channel; runs on the channel's event loop.
 */
final class ClientHandshakeHandler extends ChannelInboundHandlerAdapter {
  private enum State { IDLE, AWAIT_CHALLENGE, AWAIT_OK, DONE }

  private final String appId;
  private final byte[] secret;
  private final Duration timeout;
  private final ChannelPromise done;
  private final byte[] clientNonce = HandshakeMessages.nonce();
  private byte[] serverNonce;
  private State state = State.IDLE;
  private ScheduledFuture<?> timeoutTask;

  ClientHandshakeHandler(String appId, byte[] secret, Duration timeout, ChannelPromise done) {
    this.appId = appId;
    this.secret = secret.clone();
    this.timeout = timeout;
    this.done = done;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    start(ctx);
    ctx.fireChannelActive();
  }

  private void start(ChannelHandlerContext ctx) {
    if (state != State.IDLE) {
      return;
    }
    state = State.AWAIT_CHALLENGE;
    timeoutTask = ctx.executor().schedule(
        () -> fail(ctx, HandshakeException.Kind.TIMEOUT,
            "handshake timed out after " + timeout.toMillis() + " ms", null),
        timeout.toMillis(), TimeUnit.MILLISECONDS);
    ctx.writeAndFlush(HandshakeMessages.hello(ctx.alloc(), appId, clientNonce));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.DONE) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf body = (ByteBuf) msg;
    try {
      byte type = body.readByte();
      if (type == HandshakeMessages.REJECT) {
        String reason = WireStrings.read(body, 0xFFFF, "reject reason");
        fail(ctx, HandshakeException.Kind.REJECTED, "server refused: " + reason, null);
      } else if (type == HandshakeMessages.BUSY) {
        int retryAfter = body.readInt();
        String reason = WireStrings.read(body, 0xFFFF, "busy reason");
        fail(ctx, HandshakeException.Kind.BUSY, "server busy (retry after " + retryAfter
            + " ms): " + reason, null, retryAfter);
      } else if (state == State.AWAIT_CHALLENGE && type == HandshakeMessages.CHALLENGE) {
        serverNonce = HandshakeMessages.readFixed(body, HandshakeMessages.NONCE_BYTES, "CHALLENGE");
        state = State.AWAIT_OK;
        ctx.writeAndFlush(HandshakeMessages.fixed(ctx.alloc(), HandshakeMessages.RESPONSE,
            HandshakeMessages.clientProof(secret, appId, clientNonce, serverNonce)));
      } else if (state == State.AWAIT_OK && type == HandshakeMessages.OK) {
        byte[] proof = HandshakeMessages.readFixed(body, HandshakeMessages.PROOF_BYTES, "OK");
        if (!HandshakeMessages.matches(
            HandshakeMessages.serverProof(secret, appId, clientNonce, serverNonce), proof)) {
          fail(ctx, HandshakeException.Kind.REJECTED,
              "the server could not prove it knows the application secret", null);
          return;
        }
        state = State.DONE;
        timeoutTask.cancel(false);
        ctx.fireUserEventTriggered(new HandshakeCompletedEvent(appId));
        ctx.pipeline().remove(this);
        done.trySuccess();
      } else {
        fail(ctx, HandshakeException.Kind.PROTOCOL,
            "unexpected frame type " + type + " in state " + state, null);
      }
    } catch (MalformedFrameException | IndexOutOfBoundsException e) {
      fail(ctx, HandshakeException.Kind.PROTOCOL, "malformed handshake frame: " + e.getMessage(), e);
    } finally {
      body.release();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    fail(ctx, HandshakeException.Kind.CLOSED, "connection closed during handshake", null);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (state == State.DONE) {
      ctx.fireExceptionCaught(cause);
    } else {
      fail(ctx, HandshakeException.Kind.PROTOCOL, "error during handshake: " + cause, cause);
    }
  }

  private void fail(ChannelHandlerContext ctx, HandshakeException.Kind kind, String detail,
      Throwable cause) {
    fail(ctx, kind, detail, cause, 0);
  }

  private void fail(ChannelHandlerContext ctx, HandshakeException.Kind kind, String detail,
      Throwable cause, int retryAfterMillis) {
    if (state == State.DONE) {
      return;
    }
    state = State.DONE;
    if (timeoutTask != null) {
      timeoutTask.cancel(false);
    }
    String prefix = kind == HandshakeException.Kind.REJECTED ? "authentication failed" : "handshake failed";
    done.tryFailure(new HandshakeException(kind, prefix + " for application " + appId + " at "
        + describe(ctx.channel().remoteAddress()) + ": " + detail, cause, retryAfterMillis));
    ctx.close();
  }

  static String describe(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return inet.getHostString() + ":" + inet.getPort();
    }
    return String.valueOf(address);
  }
}
