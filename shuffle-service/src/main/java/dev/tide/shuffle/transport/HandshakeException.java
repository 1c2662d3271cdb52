package dev.tide.shuffle.transport;

import java.io.IOException;

/**
 * Why a client handshake did not complete. {@link #rejected()} is true when the server answered
 * and refused (wrong secret, unknown application, or the server failed to prove the secret);
 * false when the connection broke or the handshake timed out.
 */
public class HandshakeException extends IOException {
  /** How the handshake failed. */
  public enum Kind { REJECTED, TIMEOUT, CLOSED, PROTOCOL }

  private final Kind kind;

  public HandshakeException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  public boolean rejected() {
    return kind == Kind.REJECTED;
  }
}
