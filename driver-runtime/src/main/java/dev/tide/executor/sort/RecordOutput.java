package dev.tide.executor.sort;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * Writes records in the layout of {@link dev.tide.driver.job.RecordCodec} to a stream, counting
 * the bytes written and their CRC32C since the last {@link #takeChecksum}. Not thread-safe;
 * does not close the stream.
 */
public final class RecordOutput {
  private final OutputStream out;
  private final CRC32C crc = new CRC32C();
  private final byte[] varint = new byte[5];
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
    crc.update(keyBuf, keyFrom, keyLength);
    writeVarint(valueLength);
    out.write(valueBuf, valueFrom, valueLength);
    crc.update(valueBuf, valueFrom, valueLength);
    bytes += keyLength + valueLength;
  }

  private void writeVarint(int value) throws IOException {
    int n = 0;
    while ((value & ~0x7F) != 0) {
      varint[n++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    varint[n++] = (byte) value;
    out.write(varint, 0, n);
    crc.update(varint, 0, n);
    bytes += n;
  }

  /** The CRC32C of the bytes written since the last call (or the start); starts a new one. */
  public int takeChecksum() {
    int value = (int) crc.getValue();
    crc.reset();
    return value;
  }

  /** Bytes written so far. */
  public long bytes() {
    return bytes;
  }
}
