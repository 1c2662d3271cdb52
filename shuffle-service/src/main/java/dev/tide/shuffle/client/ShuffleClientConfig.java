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
 * @param busyRetries how many times a fetch answered BUSY (or a connection refused as BUSY) is
 *     retried before it fails with BUSY; 0 fails at the first BUSY
 * @param maxBusyBackoff the longest single wait before a retry, whatever the server asked for
 */
public record ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
    Duration readTimeout, int maxReplyBytes, int ioThreads, int busyRetries,
    Duration maxBusyBackoff) {
  public static final ShuffleClientConfig DEFAULTS = new ShuffleClientConfig(
      Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(60), 1 << 30, 2, 5,
      Duration.ofSeconds(10));

  public ShuffleClientConfig {
    requirePositive(connectTimeout, "connectTimeout");
    requirePositive(handshakeTimeout, "handshakeTimeout");
    requirePositive(readTimeout, "readTimeout");
    requirePositive(maxBusyBackoff, "maxBusyBackoff");
    if (maxReplyBytes < 64) {
      throw new IllegalArgumentException("invalid shuffle client setting maxReplyBytes: "
          + maxReplyBytes);
    }
    if (ioThreads < 1) {
      throw new IllegalArgumentException("invalid shuffle client setting ioThreads: " + ioThreads);
    }
    if (busyRetries < 0) {
      throw new IllegalArgumentException("invalid shuffle client setting busyRetries: "
          + busyRetries);
    }
  }

  /** The settings before BUSY retries existed: 5 retries, waits of at most 10 s. */
  public ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
      Duration readTimeout, int maxReplyBytes, int ioThreads) {
    this(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes, ioThreads, 5,
        Duration.ofSeconds(10));
  }

  public ShuffleClientConfig withReadTimeout(Duration timeout) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, timeout, maxReplyBytes,
        ioThreads, busyRetries, maxBusyBackoff);
  }

  public ShuffleClientConfig withMaxReplyBytes(int bytes) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, bytes,
        ioThreads, busyRetries, maxBusyBackoff);
  }

  public ShuffleClientConfig withBusyRetries(int retries, Duration maxBackoff) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes,
        ioThreads, retries, maxBackoff);
  }

  private static void requirePositive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("invalid shuffle client setting " + name + ": " + d);
    }
  }
}
