package dev.tide.executor.sort;

import java.util.Arrays;

/**
 * The order of shuffle keys: bytes compared unsigned, left to right, a shorter key first when it
 * is a prefix of the other (for UTF-8 text, code point order). The map side sorts by it, the
 * reduce side merges by it, so a reducer sees equal keys adjacent. Stateless.
 */
public final class KeyOrder {
  private KeyOrder() {}

  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  public static int compare(byte[] a, int aFrom, int aLength, byte[] b, int bFrom, int bLength) {
    return Arrays.compareUnsigned(a, aFrom, aFrom + aLength, b, bFrom, bFrom + bLength);
  }
}
