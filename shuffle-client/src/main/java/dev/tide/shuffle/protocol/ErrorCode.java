package dev.tide.shuffle.protocol;

/** Why the server refused a request; the wire byte is explicit and stable. */
public enum ErrorCode {
  /** A map output file is missing: the map must be recomputed. */
  NOT_FOUND(1),
  /** The request names an application other than the connection's, or one no longer served. */
  FORBIDDEN(2),
  /** The request cannot be served as asked (malformed, too large, range past the partitions). */
  BAD_REQUEST(3),
  /** The server is at its memory or queue limits; retry later. */
  BUSY(4),
  /** An unexpected server-side failure. */
  INTERNAL(5),
  /**
   * A map output's index or data file fails validation (header, checksum, offsets, length): the
   * disk damaged it; the map must be recomputed.
   */
  CORRUPT(6);

  private final byte wire;

  ErrorCode(int wire) {
    this.wire = (byte) wire;
  }

  public byte wire() {
    return wire;
  }

  /** Unknown codes (from a newer server) read as {@link #INTERNAL}. */
  public static ErrorCode fromWire(byte wire) {
    for (ErrorCode c : values()) {
      if (c.wire == wire) {
        return c;
      }
    }
    return INTERNAL;
  }
}
