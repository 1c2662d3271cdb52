package dev.tide.shuffle.server;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A zero-copy file region (still a {@link DefaultFileRegion}, so epoll sends it with
 * {@code sendfile} and NIO with {@code FileChannel.transferTo}) that tells {@link ServerStats}
 * when its file is closed. The file was counted as opened by {@link MapOutputResolver}.
 */
final class CountedFileRegion extends DefaultFileRegion {
  private final ServerStats stats;

  CountedFileRegion(FileChannel file, long position, long count, ServerStats stats) {
    super(file, position, count);
    this.stats = stats;
  }

  @Override
  protected void deallocate() {
    super.deallocate();
    stats.fileClosed();
  }
}
