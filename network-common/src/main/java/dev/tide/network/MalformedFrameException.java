package dev.tide.network;

/**
 * A frame whose body does not parse as the message its type byte announces.
 * {@link #requestId()} is the request id the frame carried when that much of it could be read,
 * so the error reply can name the request; else -1.
 */
public class MalformedFrameException extends RuntimeException {
  private final long requestId;

  public MalformedFrameException(String message) {
    this(message, -1);
  }

  public MalformedFrameException(String message, long requestId) {
    super(message);
    this.requestId = requestId;
  }

  /** The id of the request the frame carried, or -1 when it could not be read. */
  public long requestId() {
    return requestId;
  }
}
