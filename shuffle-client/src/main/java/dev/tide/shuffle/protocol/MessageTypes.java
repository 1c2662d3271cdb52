package dev.tide.shuffle.protocol;

/** Type bytes of the shuffle protocol (16-63); see {@code shuffle-service/PROTOCOL.md}. */
public final class MessageTypes {
  public static final byte FETCH_REQUEST = 16;
  public static final byte FETCH_REPLY = 17;
  public static final byte ERROR = 18;
  public static final byte VERIFY_REQUEST = 19;
  public static final byte VERIFY_REPLY = 20;

  private MessageTypes() {}
}
