package dev.tide.executor.sort;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32C;

/**
 * A stream that computes the CRC32C of what is read through it and, at its end, compares it with
 * the one computed when the bytes were written: a mismatch (a byte changed on the local disk
 * between writing and reading back) is an IOException naming what was read, never wrong records.
 */
final class VerifiedInput extends FilterInputStream {
  /** A local file whose bytes are not those written. */
  static final class CorruptFileException extends IOException {
    CorruptFileException(String message) {
      super(message);
    }
  }

  private final CRC32C crc = new CRC32C();
  private final int expected;
  private final String what;
  private boolean verified;

  VerifiedInput(InputStream in, int expected, String what) {
    super(in);
    this.expected = expected;
    this.what = what;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b < 0) {
      verify();
    } else {
      crc.update(b);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = super.read(b, off, len);
    if (n < 0) {
      verify();
    } else {
      crc.update(b, off, n);
    }
    return n;
  }

  private void verify() throws IOException {
    if (verified) {
      return;
    }
    verified = true;
    int actual = (int) crc.getValue();
    if (actual != expected) {
      throw new CorruptFileException("corrupt " + what + ": CRC32C " + Integer.toHexString(actual)
          + " where " + Integer.toHexString(expected) + " was written (a local disk changed"
          + " the file)");
    }
  }
}
