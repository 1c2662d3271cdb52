package dev.tide.shuffle.server;

import dev.tide.network.FileRegionSource;
import io.netty.channel.DefaultFileRegion;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A zero-copy file region (still a {@link DefaultFileRegion}, so epoll sends it with
 * {@code sendfile} and NIO with {@code FileChannel.transferTo}) over a shared open data file:
 * when released it tells {@link ServerStats} how many bytes went out through it and gives its
 * reference to the file back instead of closing it. On an encrypted connection the record layer
 * reads it with positional reads instead ({@link FileRegionSource}), counted the same way.
 */
final class CountedFileRegion extends DefaultFileRegion implements FileRegionSource {
  private final DataFiles.Handle file;
  private final ServerStats stats;
  private long readForRecords; // event loop only

  CountedFileRegion(DataFiles.Handle file, long position, long count, ServerStats stats) {
    super(file.channel(), position, count);
    this.file = file;
    this.stats = stats;
  }

  @Override
  public int read(ByteBuffer dst, long offset) throws IOException {
    long left = count() - offset;
    if (left <= 0) {
      return 0;
    }
    if (dst.remaining() > left) {
      dst.limit(dst.position() + (int) left);
    }
    int n = file.channel().read(dst, position() + offset);
    if (n > 0) {
      readForRecords += n;
    }
    return n;
  }

  @Override
  protected void deallocate() {
    // transferred() is advanced by whichever transport sent the region: sendfile in the epoll
    // native code, FileChannel.transferTo under NIO. The channel is shared: not closed here.
    stats.zeroCopySent(transferred() + readForRecords);
    file.release();
  }
}
