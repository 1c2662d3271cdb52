package dev.tide.driver.job;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Partitions by key ranges, so that partition {@code i}'s keys all sort before partition
 * {@code i+1}'s (keys compared as unsigned bytes, the order reducers see): with {@code n - 1}
 * split points {@code s}, a key goes to the first partition {@code i} with {@code key < s[i]}
 * (the last one if none). The split points, usually sampled from the input as TeraSort does,
 * travel as the partitioning's spec ({@link #spec}).
 */
public final class RangePartitioner implements Partitioner {
  private byte[][] splitPoints = new byte[0][];

  /** The spec for {@code splitPoints} (sorted, unsigned-bytes order). */
  public static byte[] spec(List<byte[]> splitPoints) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(splitPoints.size());
      for (byte[] point : splitPoints) {
        out.writeInt(point.length);
        out.write(point);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  @Override
  public void configure(byte[] spec) {
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(spec))) {
      int n = in.readInt();
      List<byte[]> points = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        byte[] point = new byte[in.readInt()];
        in.readFully(point);
        if (!points.isEmpty() && Arrays.compareUnsigned(points.get(points.size() - 1), point)
            > 0) {
          throw new IllegalArgumentException("range partitioner: split point " + i
              + " sorts before split point " + (i - 1));
        }
        points.add(point);
      }
      splitPoints = points.toArray(new byte[0][]);
    } catch (IOException e) {
      throw new IllegalArgumentException("range partitioner: malformed spec of " + spec.length
          + " bytes", e);
    }
  }

  @Override
  public int partition(byte[] key, int partitions) {
    int low = 0;
    int high = Math.min(splitPoints.length, partitions - 1);
    // The first split point greater than the key.
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (Arrays.compareUnsigned(key, splitPoints[mid]) < 0) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }
}
