package dev.tide.shuffle.server;

import io.netty.channel.DefaultFileRegion;

/**
 * A zero-copy file region (still a {@link DefaultFileRegion}, so epoll sends it with
 * {@code sendfile} and NIO with {@code FileChannel.transferTo}) over a shared open data file:
 * when released it tells {@link ServerStats} how many bytes went out through it and gives its
 * reference to the file back instead of closing it.
 */
final class CountedFileRegion extends DefaultFileRegion {
  private final DataFiles.Handle file;
  private final ServerStats stats;

  CountedFileRegion(DataFiles.Handle file, long position, long count, ServerStats stats) {
    super(file.channel(), position, count);
    this.file = file;
    this.stats = stats;
  }

  @Override
  protected void deallocate() {
    // transferred() is advanced by whichever transport sent the region: sendfile in the epoll
    // native code, FileChannel.transferTo under NIO. The channel is shared: not closed here.
    stats.zeroCopySent(transferred());
    file.release();
  }
}
