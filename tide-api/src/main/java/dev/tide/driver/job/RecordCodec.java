package dev.tide.driver.job;

import java.io.ByteArrayOutputStream;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * How records are laid out inside a shuffle segment: {@code varint keyLength, key,
 * varint valueLength, value}, repeated. Segments of several maps can be decoded one by one.
 */
public final class RecordCodec {
  private RecordCodec() {}

  public static void write(ByteArrayOutputStream out, byte[] key, byte[] value) {
    writeVarint(out, key.length);
    out.write(key, 0, key.length);
    writeVarint(out, value.length);
    out.write(value, 0, value.length);
  }

  /** Decodes a whole segment lazily. */
  public static Iterator<KeyValue> read(byte[] segment) {
    return new Iterator<>() {
      private final int[] pos = {0};

      @Override
      public boolean hasNext() {
        return pos[0] < segment.length;
      }

      @Override
      public KeyValue next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        byte[] key = readBytes(segment, pos);
        byte[] value = readBytes(segment, pos);
        return new KeyValue(key, value);
      }
    };
  }

  private static byte[] readBytes(byte[] buf, int[] pos) {
    int length = readVarint(buf, pos);
    if (length < 0 || pos[0] + length > buf.length) {
      throw new IllegalStateException("corrupt shuffle segment: record of " + length
          + " bytes at offset " + pos[0] + " of " + buf.length);
    }
    byte[] bytes = new byte[length];
    System.arraycopy(buf, pos[0], bytes, 0, length);
    pos[0] += length;
    return bytes;
  }

  static void writeVarint(ByteArrayOutputStream out, int value) {
    while ((value & ~0x7F) != 0) {
      out.write((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }

  static int readVarint(byte[] buf, int[] pos) {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos[0] >= buf.length) {
        throw new IllegalStateException("corrupt shuffle segment: truncated length at offset "
            + pos[0]);
      }
      byte b = buf[pos[0]++];
      result |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new IllegalStateException("corrupt shuffle segment: bad length at offset " + pos[0]);
  }

  /** The reduce partition of a key: non-negative hash modulo the number of reducers. */
  public static int partition(byte[] key, int reducers) {
    return Math.floorMod(java.util.Arrays.hashCode(key), reducers);
  }
}
