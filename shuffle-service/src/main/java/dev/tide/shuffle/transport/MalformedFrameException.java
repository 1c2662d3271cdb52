package dev.tide.shuffle.transport;

/** A frame whose body does not parse as the message its type byte announces. */
public class MalformedFrameException extends RuntimeException {
  public MalformedFrameException(String message) {
    super(message);
  }
}
