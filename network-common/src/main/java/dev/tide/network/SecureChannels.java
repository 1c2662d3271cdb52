package dev.tide.network;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/**
 * Assembles the front of every Tide pipeline (shuffle service and driver RPC alike):
 * length-prefixed frames, then the challenge/response handshake that binds the connection to one
 * application, then the protocol's own handlers. No protocol frame passes before the handshake
 * succeeds. After it, protocol handlers read each frame's body (type byte + payload) as a
 * {@code ByteBuf} (they own it and must release it) and write complete frames built with
 * {@link Frames}. They also receive a {@link HandshakeCompletedEvent} user event first.
 *
 * <p>Pipeline: {@code tide-frames} ({@link FrameDecoder}) -> {@code tide-handshake} (removed
 * after success) -> protocol handlers. When the client encrypts, the record layer
 * ({@code tide-crypto-open}, {@code tide-crypto-seal}) goes in front of {@code tide-frames}
 * once the handshake succeeded (see {@link WireEncryption}). Call from a {@code ChannelInitializer}; handlers that
 * must see raw bytes (e.g. an {@code IdleStateHandler}) can be added before calling.
 * The handshake is described in {@code shuffle-service/PROTOCOL.md}. Pass new protocol handler
 * instances for every channel unless they are {@code @Sharable}.
 *
 * <pre>{@code
 * // server
 * childHandler(new ChannelInitializer<Channel>() {
 *   protected void initChannel(Channel ch) {
 *     SecureChannels.initServer(ch, registry::secretFor, 1 << 20, new MyRpcHandler());
 *   }
 * });
 * // in MyRpcHandler.channelRead(ctx, msg): ByteBuf body = (ByteBuf) msg; byte type = body.readByte();
 * //   ... ctx.channel().attr(SecureChannels.APP_ID).get() ...; body.release();
 * // replying:
 * ByteBuf f = Frames.start(ctx.alloc(), (byte) 65);
 * f.writeLong(callId);
 * ctx.writeAndFlush(Frames.finish(f));
 *
 * // client
 * handler(new ChannelInitializer<Channel>() {
 *   protected void initChannel(Channel ch) {
 *     Future<Void> authenticated = SecureChannels.initClient(ch, appId, secret, 1 << 20,
 *         new MyRpcClientHandler());
 *     authenticated.addListener(f -> { if (!f.isSuccess()) log(f.cause().getMessage()); });
 *   }
 * });
 * }</pre>
 */
public final class SecureChannels {
  /** The application a server-side channel was authenticated for. */
  public static final AttributeKey<String> APP_ID = AttributeKey.valueOf("tide.appId");
  /** How long a peer has to complete the handshake. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
  /** How long refusals of one kind are only counted after one was logged. */
  public static final Duration REFUSAL_LOG_INTERVAL = Duration.ofSeconds(10);
  /** Refusals of servers that bring no aggregation of their own (driver RPC). */
  private static final ThrottledLog DEFAULT_REFUSALS = new ThrottledLog(
      LoggerFactory.getLogger(ServerHandshakeHandler.class), REFUSAL_LOG_INTERVAL,
      System::nanoTime);

  /** Failed records on client connections (servers log them with their refusals). */
  private static final ThrottledLog CLIENT_RECORD_FAILURES = new ThrottledLog(
      LoggerFactory.getLogger(RecordOpener.class), REFUSAL_LOG_INTERVAL, System::nanoTime);

  private SecureChannels() {}

  public static void initServer(Channel ch, AppSecrets secrets, int maxFrameBytes,
      ChannelHandler... protocolHandlers) {
    initServer(ch, secrets, maxFrameBytes, DEFAULT_HANDSHAKE_TIMEOUT, protocolHandlers);
  }

  /** As {@link #initServer(Channel, AppSecrets, int, ChannelHandler...)} with a given timeout. */
  public static void initServer(Channel ch, AppSecrets secrets, int maxFrameBytes,
      Duration handshakeTimeout, ChannelHandler... protocolHandlers) {
    initServer(ch, secrets, maxFrameBytes, handshakeTimeout, DEFAULT_REFUSALS, protocolHandlers);
  }

  /**
   * As {@link #initServer(Channel, AppSecrets, int, Duration, ChannelHandler...)}, logging
   * refused handshakes through {@code refusals} (one server's own aggregation). Until the peer
   * is authenticated only frames of a HELLO's maximum size are accepted; {@code maxFrameBytes}
   * applies after.
   */
  public static void initServer(Channel ch, AppSecrets secrets, int maxFrameBytes,
      Duration handshakeTimeout, ThrottledLog refusals, ChannelHandler... protocolHandlers) {
    initServer(ch, secrets, maxFrameBytes, handshakeTimeout, refusals, false, protocolHandlers);
  }

  /**
   * As {@link #initServer(Channel, AppSecrets, int, Duration, ThrottledLog, ChannelHandler...)}.
   * A client that announces encryption in its HELLO gets an encrypted connection (records, see
   * {@code shuffle-service/PROTOCOL.md}); one that does not is served in the clear, unless
   * {@code encryptionRequired}, when it is refused naming {@code tide.network.crypto.enabled}.
   */
  public static void initServer(Channel ch, AppSecrets secrets, int maxFrameBytes,
      Duration handshakeTimeout, ThrottledLog refusals, boolean encryptionRequired,
      ChannelHandler... protocolHandlers) {
    FrameDecoder frames = new FrameDecoder(
        Math.min(maxFrameBytes, HandshakeMessages.MAX_CLIENT_HANDSHAKE_FRAME_BYTES));
    ch.pipeline().addLast("tide-frames", frames);
    ch.pipeline().addLast("tide-handshake", new ServerHandshakeHandler(secrets, handshakeTimeout,
        frames, maxFrameBytes, refusals, encryptionRequired));
    ch.pipeline().addLast(protocolHandlers);
  }

  /**
   * Refuses a new server-side connection because the server is at a limit: writes a handshake
   * BUSY frame ({@code int32 retryAfterMillis | reason}) and closes the channel. Call before the
   * handshake started (e.g. from {@code channelActive}); clients fail their handshake with
   * {@link HandshakeException.Kind#BUSY} and {@link HandshakeException#retryAfterMillis()}.
   *
   * @throws IllegalArgumentException if {@code retryAfterMillis} is negative
   */
  public static void refuseBusy(Channel ch, int retryAfterMillis, String reason) {
    ch.writeAndFlush(new HandshakeMessage.Busy(retryAfterMillis, reason).toFrame(ch.alloc()))
        .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
  }

  /** @return completes when the server accepted the handshake; fails with a message otherwise */
  public static Future<Void> initClient(Channel ch, String appId, byte[] secret,
      int maxFrameBytes, ChannelHandler... protocolHandlers) {
    return initClient(ch, appId, secret, maxFrameBytes, DEFAULT_HANDSHAKE_TIMEOUT,
        protocolHandlers);
  }

  /**
   * As {@link #initClient(Channel, String, byte[], int, ChannelHandler...)} with a given
   * timeout. The returned future fails with a {@link HandshakeException}.
   */
  public static Future<Void> initClient(Channel ch, String appId, byte[] secret,
      int maxFrameBytes, Duration handshakeTimeout, ChannelHandler... protocolHandlers) {
    return initClient(ch, appId, secret, maxFrameBytes, handshakeTimeout, false,
        protocolHandlers);
  }

  /**
   * As {@link #initClient(Channel, String, byte[], int, Duration, ChannelHandler...)};
   * with {@code encrypt} the client announces encryption and, once authenticated, everything
   * both sides send is sealed in AES-GCM records with keys of this connection alone. The
   * protocol handlers see the same frames either way.
   */
  public static Future<Void> initClient(Channel ch, String appId, byte[] secret,
      int maxFrameBytes, Duration handshakeTimeout, boolean encrypt,
      ChannelHandler... protocolHandlers) {
    if (appId == null || appId.isEmpty()) {
      throw new IllegalArgumentException("no application id");
    }
    if (secret == null || secret.length == 0) {
      throw new IllegalArgumentException("empty secret for application " + appId);
    }
    if (encrypt) {
      RecordCipher.warmUpOnce(); // while the handshake runs
    }
    ChannelPromise done = ch.newPromise();
    FrameDecoder frames = new FrameDecoder(maxFrameBytes);
    ch.pipeline().addLast("tide-frames", frames);
    ch.pipeline().addLast("tide-handshake", new ClientHandshakeHandler(appId, secret,
        handshakeTimeout, done, encrypt, frames, CLIENT_RECORD_FAILURES));
    ch.pipeline().addLast(protocolHandlers);
    return done;
  }
}
