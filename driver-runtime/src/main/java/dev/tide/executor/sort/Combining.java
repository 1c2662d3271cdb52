package dev.tide.executor.sort;

import dev.tide.driver.job.Combiner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies sorted records to an output, folding each run of equal keys into one record with the
 * job's {@link Combiner} when there is one. The values of one key are held until its run ends
 * (on the map side: at most one per spill, or the records of one key in the sort buffer).
 */
final class Combining {
  private Combining() {}

  /** @return records written */
  static long copy(SortedRecords in, Combiner combiner, RecordOutput out) throws IOException {
    long written = 0;
    if (combiner == null) {
      while (in.advance()) {
        out.write(in.key(), in.value());
        written++;
      }
      return written;
    }
    byte[] key = null;
    List<byte[]> values = new ArrayList<>();
    while (in.advance()) {
      if (key != null && KeyOrder.compare(key, in.key()) != 0) {
        out.write(key, combine(combiner, key, values));
        written++;
        values.clear();
      }
      key = in.key();
      values.add(in.value());
    }
    if (key != null) {
      out.write(key, combine(combiner, key, values));
      written++;
    }
    return written;
  }

  private static byte[] combine(Combiner combiner, byte[] key, List<byte[]> values)
      throws IOException {
    if (values.size() == 1) {
      return values.get(0);
    }
    try {
      return combiner.combine(key, values.iterator());
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("combiner " + combiner.getClass().getName() + " failed: " + e, e);
    }
  }
}
