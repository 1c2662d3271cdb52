package dev.tide.shuffle.server;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What to send for one fetch request: the length and checksum (-1: none) of each requested
 * block and the parts that
 * hold their bytes back to back (adjacent ranges of one map output already coalesced): byte
 * ranges of open data files, sent zero-copy, and short ranges already read into memory
 * ({@link ShortRangeCopier}). Holds one reference to a shared open data file per file range,
 * and the copied buffers, until they are handed to Netty or {@link #closeAll released}.
 * Confined to one thread at a time (built on a disk thread, sent on the event loop).
 */
record FetchPlan(long[] blockLengths, long[] blockChecksums, List<Part> parts) {
  /** A plan whose blocks carry no checksums. */
  FetchPlan(long[] blockLengths, List<Part> parts) {
    this(blockLengths, dev.tide.shuffle.protocol.FetchReply.noChecksums(blockLengths.length),
        parts);
  }

  /** Bytes of the reply's data, in order. */
  sealed interface Part permits FileRange, Copied {
    long count();

    /** Gives back what the part holds when it will not be sent. */
    void release();
  }

  /** A byte range of an open data file. */
  record FileRange(DataFiles.Handle file, long position, long count) implements Part {
    @Override
    public void release() {
      file.release();
    }
  }

  /**
   * Bytes read from data files into a buffer; {@code held} counts them over the server until
   * the buffer is sent or released ({@link #sent}).
   */
  record Copied(ByteBuf bytes, int size, AtomicLong held) implements Part {
    @Override
    public long count() {
      return size;
    }

    /** Netty has written (and released) the buffer: its bytes no longer count. */
    void sent() {
      held.addAndGet(-size);
    }

    @Override
    public void release() {
      bytes.release();
      sent();
    }
  }

  long dataLength() {
    long sum = 0;
    for (long len : blockLengths) {
      sum += len;
    }
    return sum;
  }

  /** Releases the files and buffers of a plan that will not be sent. */
  void closeAll() {
    for (Part p : parts) {
      p.release();
    }
  }
}
