package dev.tide.network;

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
  private final boolean encrypt;
  private final FrameDecoder frames;
  private final ThrottledLog cryptoFailures;
  private final byte[] clientNonce = HandshakeMessages.nonce();
  private byte[] serverNonce;
  private State state = State.IDLE;
  private ScheduledFuture<?> timeoutTask;

  /**
   * @param encrypt whether to announce encryption and, once authenticated, install the record
   *     layer ({@link WireEncryption}) in front of {@code frames}
   */
  ClientHandshakeHandler(String appId, byte[] secret, Duration timeout, ChannelPromise done,
      boolean encrypt, FrameDecoder frames, ThrottledLog cryptoFailures) {
    this.appId = appId;
    this.secret = secret.clone();
    this.timeout = timeout;
    this.done = done;
    this.encrypt = encrypt;
    this.frames = frames;
    this.cryptoFailures = cryptoFailures;
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
    HandshakeMessage.Hello hello;
    try {
      hello = new HandshakeMessage.Hello(appId, clientNonce, encrypt);
    } catch (IllegalArgumentException e) {
      fail(ctx, HandshakeException.Kind.PROTOCOL, "cannot send HELLO: " + e.getMessage(), e);
      return;
    }
    ctx.writeAndFlush(hello.toFrame(ctx.alloc()));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.DONE) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf body = (ByteBuf) msg;
    HandshakeMessage message;
    try {
      message = HandshakeMessages.decode(body);
    } catch (MalformedFrameException e) {
      fail(ctx, HandshakeException.Kind.PROTOCOL, "malformed handshake frame: " + e.getMessage(), e);
      return;
    } finally {
      body.release();
    }
    if (message instanceof HandshakeMessage.Reject reject) {
      String hint = encrypt && state == State.AWAIT_CHALLENGE
          && reject.reason().startsWith("unsupported handshake version")
          ? " (a service from before encryption; it can be reached only with"
              + " tide.network.crypto.enabled=false)" : "";
      fail(ctx, HandshakeException.Kind.REJECTED, "server refused: " + reject.reason() + hint,
          null);
    } else if (message instanceof HandshakeMessage.Busy busy) {
      fail(ctx, HandshakeException.Kind.BUSY, "server busy (retry after "
          + busy.retryAfterMillis() + " ms): " + busy.reason(), null, busy.retryAfterMillis());
    } else if (state == State.AWAIT_CHALLENGE
        && message instanceof HandshakeMessage.Challenge challenge) {
      serverNonce = challenge.serverNonce().toArray();
      state = State.AWAIT_OK;
      ctx.writeAndFlush(new HandshakeMessage.Response(
          HandshakeMessages.clientProof(secret, appId, clientNonce, serverNonce, encrypt))
          .toFrame(ctx.alloc()));
    } else if (state == State.AWAIT_OK && message instanceof HandshakeMessage.Ok ok) {
      if (!HandshakeMessages.matches(
          HandshakeMessages.serverProof(secret, appId, clientNonce, serverNonce, encrypt),
          ok.proof().toArray())) {
        fail(ctx, HandshakeException.Kind.REJECTED,
            "the server could not prove it knows the application secret", null);
        return;
      }
      state = State.DONE;
      timeoutTask.cancel(false);
      if (encrypt) {
        WireEncryption.install(ctx.pipeline(), frames, SessionKeys.derive(secret, appId,
            clientNonce, serverNonce, true), appId, cryptoFailures);
      }
      ctx.fireUserEventTriggered(new HandshakeCompletedEvent(appId));
      ctx.pipeline().remove(this);
      done.trySuccess();
    } else {
      fail(ctx, HandshakeException.Kind.PROTOCOL, "unexpected "
          + HandshakeMessages.name(message.type()) + " in state " + state, null);
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
