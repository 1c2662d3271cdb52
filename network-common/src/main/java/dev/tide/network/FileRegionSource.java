package dev.tide.network;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@code FileRegion} that an encrypted connection can read with one positional read per record
 * (instead of {@code transferTo} through a temporary buffer), e.g. the shuffle server's regions
 * over its open data files. Implementations count what they hand out as sent.
 */
public interface FileRegionSource {
  /**
   * Reads bytes of the region, starting {@code offset} bytes into it, into {@code dst} (up to its
   * remaining space and the region's end).
   *
   * @return bytes read, at least 1 unless the region has no bytes left at {@code offset}
   * @throws IOException if the file cannot be read (for example it was cut short)
   */
  int read(ByteBuffer dst, long offset) throws IOException;
}
