package dev.tide.shuffle;

import java.nio.ByteBuffer;

/**
 * What the aux service tells the ApplicationMaster through {@code getMetaData()} (it arrives in
 * the map returned by {@code NMClient.startContainer}, keyed by the service name): its port,
 * as a 4-byte big-endian int.
 */
public final class ShuffleServiceMetadata {
  /** The aux-service name in yarn-site.xml and in container launch contexts. */
  public static final String SERVICE_NAME = "tide_shuffle";

  private ShuffleServiceMetadata() {}

  /** @return a fresh buffer positioned at 0 holding the port */
  public static ByteBuffer encodePort(int port) {
    requirePort(port);
    ByteBuffer buf = ByteBuffer.allocate(Integer.BYTES);
    buf.putInt(port);
    buf.flip();
    return buf;
  }

  /**
   * Reads the port without moving the caller's buffer position.
   *
   * @throws IllegalArgumentException naming the problem if the bytes are not a port
   */
  public static int decodePort(ByteBuffer metadata) {
    if (metadata == null) {
      throw new IllegalArgumentException("no " + SERVICE_NAME + " metadata (service not loaded?)");
    }
    ByteBuffer view = metadata.duplicate();
    if (view.remaining() != Integer.BYTES) {
      throw new IllegalArgumentException(SERVICE_NAME + " metadata must be 4 bytes (a port), got "
          + view.remaining());
    }
    int port = view.getInt();
    requirePort(port);
    return port;
  }

  private static void requirePort(int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("not a TCP port: " + port);
    }
  }
}
