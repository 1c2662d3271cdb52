package dev.tide.shuffle.client;

import dev.tide.shuffle.BlockId;
import java.io.IOException;
import java.util.List;

/** A fetch from one shuffle service that failed; names the server, the blocks and why. */
public class ShuffleFetchException extends IOException {
  /**
   * Why a fetch failed. NOT_FOUND: the map output is gone and must be recomputed; CORRUPT: the
   * service found it damaged on its disk (index or data file fails validation), likewise.
   */
  public enum Reason { CONNECT, AUTH, NOT_FOUND, BUSY, PROTOCOL, TIMEOUT, SERVER_ERROR, CORRUPT }

  private final String host;
  private final int port;
  private final List<BlockId> blocks;
  private final Reason reason;
  private final String detail;

  public ShuffleFetchException(String host, int port, List<BlockId> blocks, Reason reason,
      String message, Throwable cause) {
    super((blocks.isEmpty() ? "request to" : "fetch of " + blocks.size() + " block(s) from")
        + " tide_shuffle at " + host + ":" + port + " failed (" + reason + "): " + message, cause);
    this.detail = message;
    this.host = host;
    this.port = port;
    this.blocks = List.copyOf(blocks);
    this.reason = reason;
  }

  public String host() { return host; }
  public int port() { return port; }
  public List<BlockId> blocks() { return blocks; }
  public Reason reason() { return reason; }
  /** What went wrong, without the server and block count that {@link #getMessage()} adds. */
  public String detail() { return detail; }
}
