package dev.tide.shuffle.server;

import dev.tide.shuffle.protocol.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the short file ranges of a {@link FetchPlan} into memory, on a disk thread, so that a
 * run of consecutive short ranges goes out as one buffer in one write instead of one
 * {@code sendfile} call per range: for blocks of a few KiB the system call and its per-region
 * bookkeeping cost several times more than copying the bytes. Ranges of {@code copyBelowBytes}
 * or more stay zero-copy file regions.
 *
 * <p>Memory is bounded: copies held over the whole server (read and not yet sent) never exceed
 * {@code maxCopiedBytes}; a run that does not fit stays zero-copy. Buffers come from the
 * server's own pooled allocator, so they also count in its direct-memory limit. Thread-safe.
 */
final class ShortRangeCopier {
  private final int copyBelowBytes;
  private final long maxCopiedBytes;
  private final AtomicLong held = new AtomicLong();

  ShortRangeCopier(int copyBelowBytes, long maxCopiedBytes) {
    this.copyBelowBytes = copyBelowBytes;
    this.maxCopiedBytes = maxCopiedBytes;
  }

  /** Bytes of copies held now (read and not yet sent). */
  long heldBytes() {
    return held.get();
  }

  /**
   * The plan with each run of short file ranges replaced by one buffer holding their bytes.
   * Takes over the plan: on failure everything it held is released.
   *
   * @throws FetchRefusedException NOT_FOUND if a data file is shorter than its index says
   */
  FetchPlan copyShortRanges(FetchPlan plan, ByteBufAllocator alloc, String appId)
      throws FetchRefusedException {
    if (copyBelowBytes == 0) {
      return plan;
    }
    List<FetchPlan.Part> in = plan.parts();
    List<FetchPlan.Part> out = new ArrayList<>(in.size());
    int i = 0;
    try {
      while (i < in.size()) {
        int end = i;
        long runBytes = 0;
        while (end < in.size() && isShort(in.get(end))
            && runBytes + in.get(end).count() <= Integer.MAX_VALUE) {
          runBytes += in.get(end).count();
          end++;
        }
        if (end == i) {
          out.add(in.get(i++)); // a long range: zero-copy
          continue;
        }
        if (!reserve(runBytes)) {
          while (i < end) {
            out.add(in.get(i++)); // over the copy budget: zero-copy after all
          }
          continue;
        }
        out.add(read(in, i, end, (int) runBytes, alloc, appId));
        i = end;
      }
      return new FetchPlan(plan.blockLengths(), plan.blockChecksums(), out);
    } catch (FetchRefusedException | RuntimeException e) {
      for (FetchPlan.Part p : out) {
        p.release();
      }
      for (int j = i; j < in.size(); j++) {
        in.get(j).release();
      }
      throw e;
    }
  }

  private boolean isShort(FetchPlan.Part p) {
    return p instanceof FetchPlan.FileRange && p.count() < copyBelowBytes;
  }

  private boolean reserve(long bytes) {
    while (true) {
      long now = held.get();
      if (now + bytes > maxCopiedBytes) {
        return false;
      }
      if (held.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /**
   * Reads file ranges {@code [from, to)} of {@code parts} (reserved: {@code bytes}) into one
   * buffer and releases their files. On failure releases the buffer and the reservation, and
   * leaves the ranges to the caller.
   */
  private FetchPlan.Copied read(List<FetchPlan.Part> parts, int from, int to, int bytes,
      ByteBufAllocator alloc, String appId) throws FetchRefusedException {
    ByteBuf buf;
    try {
      buf = alloc.directBuffer(bytes, bytes);
    } catch (RuntimeException e) {
      held.addAndGet(-bytes);
      throw e;
    }
    FetchPlan.Copied copied = new FetchPlan.Copied(buf, bytes, held);
    for (int k = from; k < to; k++) {
      FetchPlan.FileRange r = (FetchPlan.FileRange) parts.get(k);
      long done = 0;
      try {
        while (done < r.count()) {
          int n = buf.writeBytes(r.file().channel(), r.position() + done,
              (int) (r.count() - done));
          if (n <= 0) {
            throw new IOException("end of file at byte " + (r.position() + done));
          }
          done += n;
        }
      } catch (IOException e) {
        copied.release();
        throw new FetchRefusedException(ErrorCode.NOT_FOUND, "map output of application "
            + appId + " not available: reading " + r.count() + " bytes at " + r.position()
            + " of " + r.file().path() + " failed: " + e.getMessage(), List.of());
      }
    }
    for (int k = from; k < to; k++) {
      parts.get(k).release();
    }
    return copied;
  }
}
