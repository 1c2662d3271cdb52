package dev.tide.shuffle.protocol;

/** Type bytes of the shuffle protocol (16-63); see {@code shuffle-service/PROTOCOL.md}. */
public final class MessageTypes {
  public static final byte FETCH_REQUEST = 16;
  public static final byte FETCH_REPLY = 17;
  public static final byte ERROR = 18;
  public static final byte VERIFY_REQUEST = 19;
  public static final byte VERIFY_REPLY = 20;
  public static final byte MIGRATE_REQUEST = 21;
  public static final byte MIGRATE_REPLY = 22;
  public static final byte PUSH_OPEN = 23;
  public static final byte PUSH_DATA = 24;
  public static final byte PUSH_REPLY = 25;

  private MessageTypes() {}
}
