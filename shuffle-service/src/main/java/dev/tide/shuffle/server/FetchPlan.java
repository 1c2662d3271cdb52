package dev.tide.shuffle.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * What to send for one fetch request: the length of each requested block and the file regions
 * that hold their bytes back to back (adjacent ranges of one map output already coalesced).
 * Owns the open file channels until they are handed to Netty as file regions or
 * {@link #closeAll closed}. Confined to one thread at a time (built on a disk thread, sent on
 * the event loop).
 */
record FetchPlan(long[] blockLengths, List<Region> regions) {
  /** A byte range of an open data file. */
  record Region(FileChannel file, long position, long count) {}

  long dataLength() {
    long sum = 0;
    for (long len : blockLengths) {
      sum += len;
    }
    return sum;
  }

  /** Closes every file of a plan that will not be sent, telling {@code stats}. */
  void closeAll(ServerStats stats) {
    for (Region r : regions) {
      try {
        r.file().close();
      } catch (IOException e) {
        // Nothing was sent from it; closing is best effort.
      }
      stats.fileClosed();
    }
  }
}
