package dev.tide.shuffle.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;

/**
 * Assembles the front of every Tide pipeline (shuffle service and driver RPC alike):
 * length-prefixed frames, then the challenge/response handshake that binds the connection to one
 * application, then the protocol's own handlers. No protocol frame passes before the handshake
 * succeeds. After it, protocol handlers read each frame's body (type byte + payload) as a
 * {@code ByteBuf} and write complete frames built with {@link Frames}.
 */
public final class SecureChannels {
  /** The application a server-side channel was authenticated for. */
  public static final AttributeKey<String> APP_ID = AttributeKey.valueOf("tide.appId");

  // TODO(shuffle-service helper): implement; keep these signatures.
  private SecureChannels() {}

  public static void initServer(Channel ch, AppSecrets secrets, int maxFrameBytes,
      ChannelHandler... protocolHandlers) {
    throw new UnsupportedOperationException();
  }

  /** @return completes when the server accepted the handshake; fails with a message otherwise */
  public static Future<Void> initClient(Channel ch, String appId, byte[] secret,
      int maxFrameBytes, ChannelHandler... protocolHandlers) {
    throw new UnsupportedOperationException();
  }
}
