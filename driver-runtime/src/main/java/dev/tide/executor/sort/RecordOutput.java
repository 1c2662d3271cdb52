package dev.tide.executor.sort;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes records in the layout of {@link dev.tide.driver.job.RecordCodec} to a stream and counts
 * the bytes written. Not thread-safe; does not close the stream.
 */
public final class RecordOutput {
  private final OutputStream out;
  private long bytes;

  public RecordOutput(OutputStream out) {
    this.out = out;
  }

  public void write(byte[] key, byte[] value) throws IOException {
    write(key, 0, key.length, value, 0, value.length);
  }

  public void write(byte[] keyBuf, int keyFrom, int keyLength, byte[] valueBuf, int valueFrom,
      int valueLength) throws IOException {
    writeVarint(keyLength);
    out.write(keyBuf, keyFrom, keyLength);
    writeVarint(valueLength);
    out.write(valueBuf, valueFrom, valueLength);
    bytes += keyLength + valueLength;
  }

  private void writeVarint(int value) throws IOException {
    while ((value & ~0x7F) != 0) {
      out.write((value & 0x7F) | 0x80);
      value >>>= 7;
      bytes++;
    }
    out.write(value);
    bytes++;
  }

  /** Bytes written so far. */
  public long bytes() {
    return bytes;
  }
}
