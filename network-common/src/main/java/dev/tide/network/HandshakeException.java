package dev.tide.network;

import java.io.IOException;

/**
 * Why a client handshake did not complete. {@link #rejected()} is true when the server answered
 * and refused (wrong secret, unknown application, or the server failed to prove the secret);
 * false when the connection broke or the handshake timed out. {@link Kind#BUSY}: the server is
 * at a limit (connections, memory) and asked to be retried after {@link #retryAfterMillis()}.
 */
public class HandshakeException extends IOException {
  /** How the handshake failed. */
  public enum Kind { REJECTED, TIMEOUT, CLOSED, PROTOCOL, BUSY }

  private final Kind kind;
  private final int retryAfterMillis;

  public HandshakeException(Kind kind, String message, Throwable cause) {
    this(kind, message, cause, 0);
  }

  public HandshakeException(Kind kind, String message, Throwable cause, int retryAfterMillis) {
    super(message, cause);
    this.kind = kind;
    this.retryAfterMillis = Math.max(0, retryAfterMillis);
  }

  /** For {@link Kind#BUSY}: how long the server asked the client to wait; 0 otherwise. */
  public int retryAfterMillis() {
    return retryAfterMillis;
  }

  public Kind kind() {
    return kind;
  }

  public boolean rejected() {
    return kind == Kind.REJECTED;
  }
}
