package dev.tide.executor.sort;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A sorted run on local disk: the records of every partition, partition after partition, each
 * sorted by key. {@code offsets[p]} .. {@code offsets[p + 1]} are partition p's bytes and
 * {@code checksums[p]} their CRC32C as written, verified when the partition is read back.
 */
record Spill(Path file, long[] offsets, int[] checksums) {
  /** Partition p's records, streamed from the file. */
  SortedRecords partition(int p) throws IOException {
    String what = "spill file " + file + " partition " + p;
    return SortedRecords.of(new RecordInput(new VerifiedInput(
        new FileRangeInput(file, offsets[p], offsets[p + 1]), checksums[p], what), what));
  }
}
