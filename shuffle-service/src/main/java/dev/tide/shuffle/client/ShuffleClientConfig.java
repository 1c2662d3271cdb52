package dev.tide.shuffle.client;

import java.time.Duration;

/**
 * Settings of a {@link ShuffleClient}; immutable.
 *
 * @param connectTimeout TCP connect timeout
 * @param handshakeTimeout time for the authentication handshake
 * @param readTimeout a connection with requests outstanding that receives nothing for this long
 *     fails them with TIMEOUT and is closed
 * @param maxReplyBytes largest reply frame accepted (the server's limit should not be larger)
 * @param ioThreads Netty event loop threads
 */
public record ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
    Duration readTimeout, int maxReplyBytes, int ioThreads) {
  public static final ShuffleClientConfig DEFAULTS = new ShuffleClientConfig(
      Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(60), 1 << 30, 2);

  public ShuffleClientConfig {
    requirePositive(connectTimeout, "connectTimeout");
    requirePositive(handshakeTimeout, "handshakeTimeout");
    requirePositive(readTimeout, "readTimeout");
    if (maxReplyBytes < 64) {
      throw new IllegalArgumentException("invalid shuffle client setting maxReplyBytes: "
          + maxReplyBytes);
    }
    if (ioThreads < 1) {
      throw new IllegalArgumentException("invalid shuffle client setting ioThreads: " + ioThreads);
    }
  }

  public ShuffleClientConfig withReadTimeout(Duration timeout) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, timeout, maxReplyBytes,
        ioThreads);
  }

  public ShuffleClientConfig withMaxReplyBytes(int bytes) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, bytes,
        ioThreads);
  }

  private static void requirePositive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("invalid shuffle client setting " + name + ": " + d);
    }
  }
}
