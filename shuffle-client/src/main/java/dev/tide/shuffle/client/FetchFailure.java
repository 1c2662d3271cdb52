package dev.tide.shuffle.client;

import dev.tide.shuffle.BlockId;
import java.util.List;

/**
 * Internal outcome of a failed request, completed into the request's future on the event loop
 * and turned into a {@link ShuffleFetchException} (with host, port and blocks) by the caller.
 */
final class FetchFailure extends Exception {
  private final ShuffleFetchException.Reason reason;
  private final List<BlockId> blocks;
  private final int retryAfterMillis;

  FetchFailure(ShuffleFetchException.Reason reason, String message, List<BlockId> blocks,
      Throwable cause) {
    this(reason, message, blocks, cause, 0);
  }

  FetchFailure(ShuffleFetchException.Reason reason, String message, List<BlockId> blocks,
      Throwable cause, int retryAfterMillis) {
    super(message, cause);
    this.reason = reason;
    this.blocks = List.copyOf(blocks);
    this.retryAfterMillis = retryAfterMillis;
  }

  /** For BUSY: the wait the server asked for (0 if it named none). */
  int retryAfterMillis() {
    return retryAfterMillis;
  }

  ShuffleFetchException.Reason reason() {
    return reason;
  }

  /** The blocks the server named, empty if it named none. */
  List<BlockId> blocks() {
    return blocks;
  }
}
