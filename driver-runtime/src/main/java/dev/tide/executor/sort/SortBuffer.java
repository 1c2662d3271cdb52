package dev.tide.executor.sort;

import java.io.IOException;

/**
 * The map side's sort buffer: records (partition, key, value) appended into one byte array with
 * fixed-size metadata, sorted in place by (partition, key) when written out. Its memory is fixed
 * at construction: three quarters of {@code bytes} for record bytes, the rest for metadata
 * (24 bytes a record). {@link #fits} says whether a record still fits; the caller spills and
 * {@link #clear}s when not. Not thread-safe.
 */
final class SortBuffer {
  /** Metadata bytes per record: partition, key start, key length, value length, 2 sort slots. */
  static final int METADATA_BYTES = 24;

  private final byte[] data;
  private final int[] partition;
  private final int[] keyStart;
  private final int[] keyLength;
  private final int[] valueLength;
  private final int[] order;
  private final int[] scratch;
  private int used;
  private int records;

  SortBuffer(long bytes) {
    long dataBytes = Math.max(1024, Math.min(Integer.MAX_VALUE - 16, bytes * 3 / 4));
    int maxRecords = (int) Math.max(16, Math.min(Integer.MAX_VALUE - 16,
        (bytes - dataBytes) / METADATA_BYTES));
    data = new byte[(int) dataBytes];
    partition = new int[maxRecords];
    keyStart = new int[maxRecords];
    keyLength = new int[maxRecords];
    valueLength = new int[maxRecords];
    order = new int[maxRecords];
    scratch = new int[maxRecords];
  }

  /** Whether a record of these sizes fits now. */
  boolean fits(int keyBytes, int valueBytes) {
    return records < partition.length && (long) used + keyBytes + valueBytes <= data.length;
  }

  /** Whether a record of these sizes fits an empty buffer. */
  boolean couldFit(int keyBytes, int valueBytes) {
    return (long) keyBytes + valueBytes <= data.length;
  }

  void add(int p, byte[] key, byte[] value) {
    int r = records++;
    partition[r] = p;
    keyStart[r] = used;
    keyLength[r] = key.length;
    System.arraycopy(key, 0, data, used, key.length);
    used += key.length;
    valueLength[r] = value.length;
    System.arraycopy(value, 0, data, used, value.length);
    used += value.length;
  }

  boolean isEmpty() {
    return records == 0;
  }

  void clear() {
    used = 0;
    records = 0;
  }

  /** Sorts by (partition, key) and streams the records, partition by partition. */
  interface PartitionSink {
    /** Called once per partition, in order, with that partition's records sorted by key. */
    void partition(int p, SortedRecords records) throws IOException;
  }

  void writeSorted(int partitions, PartitionSink sink) throws IOException {
    for (int i = 0; i < records; i++) {
      order[i] = i;
    }
    mergeSort(0, records);
    int i = 0;
    for (int p = 0; p < partitions; p++) {
      int from = i;
      while (i < records && partition[order[i]] == p) {
        i++;
      }
      sink.partition(p, view(from, i));
    }
  }

  private SortedRecords view(int from, int to) {
    return new SortedRecords() {
      private int at = from - 1;

      @Override
      public boolean advance() {
        return ++at < to;
      }

      @Override
      public byte[] key() {
        int r = order[at];
        return java.util.Arrays.copyOfRange(data, keyStart[r], keyStart[r] + keyLength[r]);
      }

      @Override
      public byte[] value() {
        int r = order[at];
        int start = keyStart[r] + keyLength[r];
        return java.util.Arrays.copyOfRange(data, start, start + valueLength[r]);
      }

      @Override
      public void close() {}
    };
  }

  private int compare(int a, int b) {
    int c = Integer.compare(partition[a], partition[b]);
    return c != 0 ? c : KeyOrder.compare(data, keyStart[a], keyLength[a], data, keyStart[b],
        keyLength[b]);
  }

  /** Stable merge sort of order[from, to) (equal keys keep the order they were added in). */
  private void mergeSort(int from, int to) {
    if (to - from < 2) {
      return;
    }
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int v = order[i];
        int j = i - 1;
        while (j >= from && compare(order[j], v) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = v;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(from, mid);
    mergeSort(mid, to);
    if (compare(order[mid - 1], order[mid]) <= 0) {
      return;
    }
    System.arraycopy(order, from, scratch, from, to - from);
    int i = from;
    int j = mid;
    for (int k = from; k < to; k++) {
      if (j >= to || i < mid && compare(scratch[i], scratch[j]) <= 0) {
        order[k] = scratch[i++];
      } else {
        order[k] = scratch[j++];
      }
    }
  }
}
