package dev.tide.driver.job;

import java.io.IOException;
import java.util.List;

/**
 * Where a streaming job's records come from. Before each batch the driver {@link #take takes}
 * what arrived since the last batch, as input splits for the batch's plan. A source is
 * positioned, not time-driven: taking from the same position gives the same batch, and the
 * driver logs every batch it takes in the job's checkpoint directory before it runs it, so a
 * resubmitted job reruns a batch that did not commit with the very same input and then
 * continues from the last batch's position ({@link #restore}). One thread calls a source.
 */
public interface StreamSource {

  /**
   * One batch's input.
   *
   * @param timeMillis the end of the interval whose input it holds (its scheduled start)
   * @param records records in it, or the input bytes where the source cannot count records
   *     before they are read (files); 0 for an empty batch
   * @param position where the source stands after this batch, in bytes only the source reads
   */
  record Batch(long timeMillis, List<InputSplit> splits, long records, byte[] position) {
    public Batch {
      splits = List.copyOf(splits);
      position = position.clone();
    }

    @Override
    public byte[] position() {
      return position.clone();
    }
  }

  /**
   * Positions the source after the batches an earlier run of the job logged (oldest first;
   * empty for a new stream), before the first {@link #take}.
   */
  void restore(List<Batch> logged) throws IOException;

  /** Takes what arrived up to {@code batchTimeMillis} since the last batch, as one batch. */
  Batch take(long batchTimeMillis) throws IOException;

  /**
   * Records (as {@link Batch#records} counts them) that have arrived up to {@code timeMillis}
   * and are not yet taken, or -1 when the source cannot tell without reading.
   */
  default long waitingRecords(long timeMillis) {
    return -1;
  }
}
