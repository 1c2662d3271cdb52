package dev.tide.shuffle;

import java.nio.ByteBuffer;

/**
 * What the aux service tells the ApplicationMaster through {@code getMetaData()} (it arrives in
 * the map returned by {@code NMClient.startContainer}, keyed by the service name): its port.
 */
public final class ShuffleServiceMetadata {
  /** The aux-service name in yarn-site.xml and in container launch contexts. */
  public static final String SERVICE_NAME = "tide_shuffle";

  // TODO(shuffle-service helper): implement; keep these signatures.
  private ShuffleServiceMetadata() {}

  public static ByteBuffer encodePort(int port) {
    throw new UnsupportedOperationException();
  }

  /** @throws IllegalArgumentException naming the problem if the bytes are not a port */
  public static int decodePort(ByteBuffer metadata) {
    throw new UnsupportedOperationException();
  }
}
