package dev.tide.network;

import java.io.IOException;

/**
 * An encrypted connection failed: a record that did not open (tampered, replayed, reordered,
 * cut, wrong key) or a record length beyond the limit. The message names the peer, the
 * application and what failed; the connection is closed already. An {@link IOException}, so
 * protocol handlers treat it as a lost connection (a fetch failure, not a task error).
 */
public final class RecordCryptoException extends IOException {
  RecordCryptoException(String message) {
    super(message);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // the message says all; no stack trace for a peer's bad bytes
  }
}
