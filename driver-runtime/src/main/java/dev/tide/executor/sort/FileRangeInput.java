package dev.tide.executor.sort;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The bytes {@code [from, to)} of a file as a buffered stream (positional reads through its own
 * channel, so several ranges of one file can be read at once). Closing closes the channel.
 */
final class FileRangeInput extends InputStream {
  static final int BUFFER_BYTES = 32 << 10;

  private final FileChannel channel;
  private final ByteBuffer buffer;
  private long position;
  private final long end;

  FileRangeInput(Path file, long from, long to) throws IOException {
    this.channel = FileChannel.open(file, StandardOpenOption.READ);
    this.position = from;
    this.end = to;
    this.buffer = ByteBuffer.allocate((int) Math.min(BUFFER_BYTES, Math.max(1, to - from)));
    buffer.flip();
  }

  private boolean fill() throws IOException {
    if (buffer.hasRemaining()) {
      return true;
    }
    if (position >= end) {
      return false;
    }
    buffer.clear();
    buffer.limit((int) Math.min(buffer.capacity(), end - position));
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position);
      if (n < 0) {
        throw new IOException("file ended at " + position + " before " + end);
      }
      position += n;
    }
    buffer.flip();
    return true;
  }

  @Override
  public int read() throws IOException {
    return fill() ? buffer.get() & 0xFF : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, buffer.remaining());
    buffer.get(b, off, n);
    return n;
  }

  /** The bytes left in the range (capped at Integer.MAX_VALUE). */
  @Override
  public int available() {
    return (int) Math.min(Integer.MAX_VALUE, end - position + buffer.remaining());
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
