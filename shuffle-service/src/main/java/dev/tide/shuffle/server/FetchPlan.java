package dev.tide.shuffle.server;

import java.util.List;

/**
 * What to send for one fetch request: the length of each requested block and the file regions
 * that hold their bytes back to back (adjacent ranges of one map output already coalesced).
 * Holds one reference to a shared open data file per region until the region is handed to Netty
 * as a file region or {@link #closeAll released}. Confined to one thread at a time (built on a
 * disk thread, sent on the event loop).
 */
record FetchPlan(long[] blockLengths, List<Region> regions) {
  /** A byte range of an open data file. */
  record Region(DataFiles.Handle file, long position, long count) {}

  long dataLength() {
    long sum = 0;
    for (long len : blockLengths) {
      sum += len;
    }
    return sum;
  }

  /** Releases the files of a plan that will not be sent. */
  void closeAll() {
    for (Region r : regions) {
      r.file().release();
    }
  }
}
