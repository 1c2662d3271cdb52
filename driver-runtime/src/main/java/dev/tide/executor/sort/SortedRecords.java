package dev.tide.executor.sort;

import java.io.IOException;

/** Records in key order ({@link KeyOrder}), one at a time: {@link #advance}, then read. */
public interface SortedRecords extends AutoCloseable {
  /** Moves to the next record; false when there is none. */
  boolean advance() throws IOException;

  /** The current record's key; valid until the next {@link #advance}. */
  byte[] key();

  /** The current record's value; valid until the next {@link #advance}. */
  byte[] value();

  @Override
  void close() throws IOException;

  /** Adapts a {@link RecordInput} whose records are already sorted. */
  static SortedRecords of(RecordInput in) {
    return new SortedRecords() {
      @Override
      public boolean advance() throws IOException {
        return in.advance();
      }

      @Override
      public byte[] key() {
        return in.key();
      }

      @Override
      public byte[] value() {
        return in.value();
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }
}
