package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server side of the handshake: HELLO -> CHALLENGE -> RESPONSE -> OK, or REJECT and close.
 * An unknown application gets a challenge like any other and is refused at RESPONSE with the
 * same message as a wrong secret, so a prober learns nothing; the real reason is logged.
 * On success it sets {@link SecureChannels#APP_ID}, fires {@link HandshakeCompletedEvent} and
 * removes itself. A refusal fires {@link HandshakeRefusedEvent} before the REJECT is written.
 *
 * <p>Until the handshake succeeds the frame decoder accepts only handshake-sized frames
 * ({@link HandshakeMessages#MAX_CLIENT_HANDSHAKE_FRAME_BYTES}); a larger length prefix is refused
 * at once, unbuffered. On success the limit is raised to the protocol's. Refusals are logged
 * through a {@link ThrottledLog} (one line per kind and interval plus a count), with every value
 * from the peer escaped ({@link LogSafe}), since anyone who reaches the port can cause them.
 * One instance per channel; runs on the channel's event loop.
 */
final class ServerHandshakeHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandshakeHandler.class);
  static final String GENERIC_REFUSAL = "authentication failed";

  private enum State { AWAIT_HELLO, AWAIT_RESPONSE, DONE, REFUSED }

  private final AppSecrets secrets;
  private final Duration timeout;
  private final FrameDecoder frames;
  private final int protocolMaxFrameBytes;
  private final ThrottledLog refusals;
  private final boolean encryptionRequired;
  private boolean encrypt;
  private State state = State.AWAIT_HELLO;
  private String appId;
  private byte[] secret;
  private byte[] clientNonce;
  private byte[] serverNonce;
  private ScheduledFuture<?> timeoutTask;

  /**
   * @param frames the channel's frame decoder, whose limit is raised to
   *     {@code protocolMaxFrameBytes} once the peer is authenticated
   * @param refusals where refusals (and failed records of encrypted connections) are logged
   * @param encryptionRequired whether a client that does not encrypt is refused
   */
  ServerHandshakeHandler(AppSecrets secrets, Duration timeout, FrameDecoder frames,
      int protocolMaxFrameBytes, ThrottledLog refusals, boolean encryptionRequired) {
    this.encryptionRequired = encryptionRequired;
    this.secrets = secrets;
    this.timeout = timeout;
    this.frames = frames;
    this.protocolMaxFrameBytes = protocolMaxFrameBytes;
    this.refusals = refusals;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isRegistered()) {
      scheduleTimeout(ctx);
    }
  }

  @Override
  public void channelRegistered(ChannelHandlerContext ctx) {
    scheduleTimeout(ctx);
    ctx.fireChannelRegistered();
  }

  private void scheduleTimeout(ChannelHandlerContext ctx) {
    if (timeoutTask == null) {
      timeoutTask = ctx.executor().schedule(() -> {
        if (state == State.AWAIT_HELLO || state == State.AWAIT_RESPONSE) {
          refuse(ctx, "handshake timeouts", "handshake timed out after " + timeout.toMillis()
              + " ms", "handshake timed out");
        }
      }, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.DONE) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (state == State.REFUSED) {
      ((ByteBuf) msg).release();
      return;
    }
    ByteBuf body = (ByteBuf) msg;
    HandshakeMessage message;
    try {
      message = HandshakeMessages.decode(body);
    } catch (HandshakeMessage.UnsupportedVersionException e) {
      refuse(ctx, "handshakes of an unsupported version", e.getMessage(), e.getMessage());
      return;
    } catch (MalformedFrameException e) {
      refuse(ctx, "malformed handshakes", "malformed handshake frame: " + e.getMessage(),
          GENERIC_REFUSAL);
      return;
    } finally {
      body.release();
    }
    if (state == State.AWAIT_HELLO && message instanceof HandshakeMessage.Hello hello) {
      onHello(ctx, hello);
    } else if (state == State.AWAIT_RESPONSE
        && message instanceof HandshakeMessage.Response response) {
      onResponse(ctx, response);
    } else {
      refuse(ctx, "malformed handshakes", "unexpected " + HandshakeMessages.name(message.type())
          + " in state " + state, GENERIC_REFUSAL);
    }
  }

  private void onHello(ChannelHandlerContext ctx, HandshakeMessage.Hello hello) {
    appId = hello.appId();
    encrypt = hello.encrypt();
    if (encryptionRequired && !encrypt) {
      refuse(ctx, "unencrypted clients", "the client does not encrypt and this server requires"
          + " encryption", "this server requires encrypted connections; set"
          + " tide.network.crypto.enabled=true");
      return;
    }
    clientNonce = hello.clientNonce().toArray();
    secret = secrets.secretFor(appId);
    serverNonce = HandshakeMessages.nonce();
    state = State.AWAIT_RESPONSE;
    ctx.writeAndFlush(new HandshakeMessage.Challenge(serverNonce).toFrame(ctx.alloc()));
  }

  private void onResponse(ChannelHandlerContext ctx, HandshakeMessage.Response response) {
    if (secret == null) {
      refuse(ctx, "handshakes for unknown applications", "unknown application "
          + LogSafe.text(appId), GENERIC_REFUSAL);
      return;
    }
    byte[] expected = HandshakeMessages.clientProof(secret, appId, clientNonce, serverNonce,
        encrypt);
    if (!HandshakeMessages.matches(expected, response.proof().toArray())) {
      refuse(ctx, "handshakes with a wrong secret", "wrong secret for application "
          + LogSafe.text(appId), GENERIC_REFUSAL);
      return;
    }
    state = State.DONE;
    timeoutTask.cancel(false);
    ctx.channel().attr(SecureChannels.APP_ID).set(appId);
    frames.maxFrameBytes(protocolMaxFrameBytes);
    ctx.writeAndFlush(new HandshakeMessage.Ok(HandshakeMessages.serverProof(secret, appId,
        clientNonce, serverNonce, encrypt)).toFrame(ctx.alloc()));
    if (encrypt) { // after OK went out in the clear; everything after it is records
      WireEncryption.install(ctx.pipeline(), frames, SessionKeys.derive(secret, appId,
          clientNonce, serverNonce, false), appId, refusals);
    }
    LOG.debug("authenticated {} for application {}{}", ctx.channel().remoteAddress(),
        LogSafe.text(appId), encrypt ? " (encrypted)" : "");
    secret = null;
    ctx.fireUserEventTriggered(new HandshakeCompletedEvent(appId));
    ctx.pipeline().remove(this);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (state == State.DONE) {
      ctx.fireExceptionCaught(cause);
    } else if (state != State.REFUSED) {
      String kind = cause instanceof TooLongFrameException ? "oversized handshake frames"
          : cause instanceof IOException ? "connections failed during the handshake"
          : "errors during the handshake";
      refuse(ctx, kind, "error during handshake: " + LogSafe.text(cause, 500), GENERIC_REFUSAL);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (timeoutTask != null) {
      timeoutTask.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  /**
   * @param kind the refusal's kind for log aggregation (a fixed string)
   * @param realReason logged; any peer value in it already escaped
   */
  private void refuse(ChannelHandlerContext ctx, String kind, String realReason,
      String toldReason) {
    if (state == State.DONE || state == State.REFUSED) {
      return;
    }
    refusals.warn(kind, "refused connection from {} (application {}): {}",
        ctx.channel().remoteAddress(), appId == null ? "?" : LogSafe.text(appId), realReason);
    state = State.REFUSED;
    secret = null;
    if (timeoutTask != null) {
      timeoutTask.cancel(false);
    }
    ctx.fireUserEventTriggered(new HandshakeRefusedEvent(appId, realReason));
    ctx.writeAndFlush(new HandshakeMessage.Reject(toldReason).toFrame(ctx.alloc()))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
