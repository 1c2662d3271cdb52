package dev.tide.shuffle.server;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A zero-copy file region (still a {@link DefaultFileRegion}, so epoll sends it with
 * {@code sendfile} and NIO with {@code FileChannel.transferTo}) that tells {@link ServerStats}
 * when its file is closed and how many bytes went out through it. The file was counted as
 * opened by {@link MapOutputResolver}.
 */
final class CountedFileRegion extends DefaultFileRegion {
  private final ServerStats stats;

  CountedFileRegion(FileChannel file, long position, long count, ServerStats stats) {
    super(file, position, count);
    this.stats = stats;
  }

  @Override
  protected void deallocate() {
    // transferred() is advanced by whichever transport sent the region: sendfile in the epoll
    // native code, FileChannel.transferTo under NIO.
    stats.zeroCopySent(transferred());
    super.deallocate();
    stats.fileClosed();
  }
}
