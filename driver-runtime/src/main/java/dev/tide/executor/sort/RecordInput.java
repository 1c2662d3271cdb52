package dev.tide.executor.sort;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads records ({@code varint keyLength, key, varint valueLength, value}, the layout of
 * {@link dev.tide.driver.job.RecordCodec}) one at a time from a stream whose
 * {@code available()} is the number of bytes left (a file range, an array), holding only the
 * current one: {@link #advance} then {@link #key} / {@link #value}. Names its source, the
 * record's number and the byte offsets (from the start of the stream) in errors. Not
 * thread-safe.
 */
public final class RecordInput implements AutoCloseable {
  private final InputStream in;
  private final String source;
  private byte[] key;
  private byte[] value;
  private long records;
  /** Bytes read from the stream so far, and where the record being read starts. */
  private long offset;
  private long recordStart;

  /** @param source what the stream is, for error messages (a file, a block) */
  public RecordInput(InputStream in, String source) {
    this.in = in;
    this.source = source;
  }

  /** Moves to the next record; false at the end of the stream. */
  public boolean advance() throws IOException {
    recordStart = offset;
    int keyLength = readVarint(true);
    if (keyLength < 0) {
      key = null;
      value = null;
      return false;
    }
    key = readBytes(keyLength);
    value = readBytes(readVarint(false));
    records++;
    return true;
  }

  public byte[] key() {
    return key;
  }

  public byte[] value() {
    return value;
  }

  private byte[] readBytes(int length) throws IOException {
    int left = in.available();
    if (length > left) {
      // Only files and arrays are read here, whose available() is what is left: a length
      // beyond it is corruption, and must not become a huge allocation.
      throw corrupt("record of " + length + " bytes with " + left + " left");
    }
    byte[] bytes = new byte[length];
    int done = 0;
    while (done < length) {
      int n = in.read(bytes, done, length - done);
      if (n < 0) {
        throw corrupt("record truncated after " + done + " of " + length + " bytes");
      }
      done += n;
      offset += n;
    }
    return bytes;
  }

  /** -1 at a clean end of stream (only where a record may start). */
  private int readVarint(boolean endAllowed) throws IOException {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.read();
      if (b >= 0) {
        offset++;
      }
      if (b < 0) {
        if (shift == 0 && endAllowed) {
          return -1;
        }
        throw corrupt("truncated length");
      }
      result |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (result < 0) {
          throw corrupt("negative length " + result);
        }
        return result;
      }
    }
    throw corrupt("bad length");
  }

  private IOException corrupt(String what) {
    return new EOFException("corrupt records in " + source + ": record " + (records + 1)
        + " (from byte offset " + recordStart + "), at byte offset " + offset + ": " + what);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
