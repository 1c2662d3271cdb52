package dev.tide.shuffle.client;

import java.time.Duration;

/**
 * Settings of a {@link ShuffleClient}; immutable. {@link #DEFAULTS}: connect timeout 10 s,
 * handshake timeout 10 s, read timeout 60 s, replies up to 1 GiB, 2 I/O threads, 5 BUSY retries
 * with waits of at most 10 s, 3 connect retries after 200 ms, 400 ms and 800 ms (plus jitter).
 *
 * @param connectTimeout TCP connect timeout
 * @param handshakeTimeout time for the authentication handshake
 * @param readTimeout a connection with requests outstanding that receives nothing for this long
 *     fails them with TIMEOUT and is closed
 * @param maxReplyBytes largest reply frame accepted (the server's limit should not be larger)
 * @param ioThreads Netty event loop threads
 * @param busyRetries how many times a fetch answered BUSY (or a connection refused as BUSY) is
 *     retried before it fails with BUSY; 0 fails at the first BUSY
 * @param maxBusyBackoff the longest single wait before a retry, whatever the server asked for;
 *     caps the waits after a connect failure too
 * @param connectRetries how many times a fetch whose connection failed (refused, unreachable,
 *     closed during the handshake or the request) is tried again on a new connection before it
 *     fails with CONNECT; 0 fails at the first failure. A connection the client kept open and
 *     found closed is replaced once at once, without counting
 * @param connectBackoff the wait before the first connect retry; it doubles for each further
 *     one (capped at {@code maxBusyBackoff}), plus up to 20 % jitter. With the defaults a node
 *     that refuses connections is given up after 4 attempts and at most 1.7 s of waiting; an
 *     unreachable one can also take {@code connectTimeout} per attempt
 * @param encrypt whether connections announce encryption and seal everything after the
 *     handshake in AES-GCM records ({@code tide.network.crypto.enabled}; see
 *     {@code shuffle-service/PROTOCOL.md}); off by default
 */
public record ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
    Duration readTimeout, int maxReplyBytes, int ioThreads, int busyRetries,
    Duration maxBusyBackoff, int connectRetries, Duration connectBackoff, boolean encrypt) {
  /** Default of {@link #connectRetries()}. */
  public static final int DEFAULT_CONNECT_RETRIES = 3;
  /** Default of {@link #connectBackoff()}. */
  public static final Duration DEFAULT_CONNECT_BACKOFF = Duration.ofMillis(200);

  public static final ShuffleClientConfig DEFAULTS = new ShuffleClientConfig(
      Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(60), 1 << 30, 2, 5,
      Duration.ofSeconds(10), DEFAULT_CONNECT_RETRIES, DEFAULT_CONNECT_BACKOFF, false);

  /** The settings before encryption existed: connections in the clear. */
  public ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
      Duration readTimeout, int maxReplyBytes, int ioThreads, int busyRetries,
      Duration maxBusyBackoff, int connectRetries, Duration connectBackoff) {
    this(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes, ioThreads, busyRetries,
        maxBusyBackoff, connectRetries, connectBackoff, false);
  }

  public ShuffleClientConfig {
    requirePositive(connectTimeout, "connectTimeout");
    requirePositive(handshakeTimeout, "handshakeTimeout");
    requirePositive(readTimeout, "readTimeout");
    requirePositive(maxBusyBackoff, "maxBusyBackoff");
    requirePositive(connectBackoff, "connectBackoff");
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
    if (connectRetries < 0) {
      throw new IllegalArgumentException("invalid shuffle client setting connectRetries: "
          + connectRetries);
    }
  }

  /** The settings before connect retries existed, with the default connect retries. */
  public ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
      Duration readTimeout, int maxReplyBytes, int ioThreads, int busyRetries,
      Duration maxBusyBackoff) {
    this(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes, ioThreads, busyRetries,
        maxBusyBackoff, DEFAULT_CONNECT_RETRIES, DEFAULT_CONNECT_BACKOFF);
  }

  /** The settings before BUSY retries existed: 5 retries, waits of at most 10 s. */
  public ShuffleClientConfig(Duration connectTimeout, Duration handshakeTimeout,
      Duration readTimeout, int maxReplyBytes, int ioThreads) {
    this(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes, ioThreads, 5,
        Duration.ofSeconds(10));
  }

  public ShuffleClientConfig withReadTimeout(Duration timeout) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, timeout, maxReplyBytes,
        ioThreads, busyRetries, maxBusyBackoff, connectRetries, connectBackoff, encrypt);
  }

  public ShuffleClientConfig withMaxReplyBytes(int bytes) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, bytes,
        ioThreads, busyRetries, maxBusyBackoff, connectRetries, connectBackoff, encrypt);
  }

  public ShuffleClientConfig withBusyRetries(int retries, Duration maxBackoff) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes,
        ioThreads, retries, maxBackoff, connectRetries, connectBackoff, encrypt);
  }

  /** These settings with encryption on or off. */
  public ShuffleClientConfig withEncryption(boolean on) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes,
        ioThreads, busyRetries, maxBusyBackoff, connectRetries, connectBackoff, on);
  }

  public ShuffleClientConfig withConnectRetries(int retries, Duration firstBackoff) {
    return new ShuffleClientConfig(connectTimeout, handshakeTimeout, readTimeout, maxReplyBytes,
        ioThreads, busyRetries, maxBusyBackoff, retries, firstBackoff, encrypt);
  }

  private static void requirePositive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("invalid shuffle client setting " + name + ": " + d);
    }
  }
}
