package dev.tide.shuffle.client;

import dev.tide.shuffle.BlockId;
import java.util.List;

/**
 * Fetches map output segments from {@code tide_shuffle} services for one application,
 * authenticating every connection with the application's secret. Thread-safe.
 */
public final class ShuffleClient implements AutoCloseable {
  // TODO(shuffle-service helper): implement; keep these signatures.
  public ShuffleClient(String appId, byte[] secret) {
    throw new UnsupportedOperationException();
  }

  /**
   * Fetches {@code blocks} from the service at host:port in one request.
   *
   * @return the bytes of each block (its segments concatenated), in the order asked
   * @throws ShuffleFetchException naming the server, the blocks and the reason
   */
  public List<byte[]> fetch(String host, int port, List<BlockId> blocks)
      throws ShuffleFetchException {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}
}
