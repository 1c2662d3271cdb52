package dev.tide.shuffle.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Open map-output data files, shared by the replies that read them and kept open between
 * requests, so a reducer's many small fetches do not open and close the same files again and
 * again. A file is identified by its path and its file key (inode), read by the resolver in the
 * same {@code stat} that checks the file is complete, so a map output deleted and written again
 * (a rerun map) is opened anew and never served from the old file.
 *
 * <p>Each {@link #acquire} takes a reference that its reply releases once sent (or abandoned).
 * Files no reply holds stay open up to {@code maxIdleFiles}, least recently used closed first;
 * {@link #forgetApplication} closes an application's idle files at once and the rest as their
 * replies finish. Counts files in use in {@link ServerStats#openFiles()} and idle ones in
 * {@link ServerStats#idleOpenFiles()}. Thread-safe (one lock; the work under it is map
 * bookkeeping and closing; files are opened outside it).
 */
final class DataFiles {
  /** One open file and the replies holding it. */
  final class Handle {
    private final Key key;
    private final FileChannel channel;
    private int refs;
    private boolean forgotten;

    private Handle(Key key, FileChannel channel) {
      this.key = key;
      this.channel = channel;
    }

    FileChannel channel() {
      return channel;
    }

    Path path() {
      return key.path();
    }

    /** Gives back one reference; the last one of a forgotten file closes it. */
    void release() {
      DataFiles.this.release(this);
    }
  }

  private record Key(String appId, Path path, Object fileKey) {}

  private final int maxIdleFiles;
  private final ServerStats stats;
  /** In access order: the first idle entries are the least recently used. */
  private final LinkedHashMap<Key, Handle> files = new LinkedHashMap<>(64, 0.75f, true);
  private int idle;

  DataFiles(int maxIdleFiles, ServerStats stats) {
    this.maxIdleFiles = maxIdleFiles;
    this.stats = stats;
  }

  /**
   * A reference to the open data file of {@code appId} at {@code path} whose file key is
   * {@code fileKey} (null when the file system has none: then the path alone identifies it).
   */
  Handle acquire(String appId, Path path, Object fileKey) throws IOException {
    Key key = new Key(appId, path, fileKey);
    Handle h = reuse(key);
    if (h != null) {
      return h;
    }
    // Opened outside the lock: release() runs on event loops, which must never wait for a disk.
    Handle opened = new Handle(key, FileChannel.open(path, StandardOpenOption.READ));
    Handle raced;
    synchronized (this) {
      raced = reuse(key);
      if (raced == null) {
        files.put(key, opened);
        opened.refs = 1;
        stats.fileOpened();
        return opened;
      }
    }
    close(opened); // another disk thread opened the same file first
    return raced;
  }

  /**
   * The size of the data file if it is open here (an {@code fstat} of the open file, no path
   * lookup), or -1 if it is not open.
   */
  long sizeIfOpen(String appId, Path path, Object fileKey) throws IOException {
    Handle h = reuse(new Key(appId, path, fileKey)); // held so it is not closed meanwhile
    if (h == null) {
      return -1;
    }
    try {
      return h.channel.size();
    } finally {
      h.release();
    }
  }

  /** Takes a reference to the already open file of {@code key}, or null. */
  private synchronized Handle reuse(Key key) {
    Handle h = files.get(key);
    if (h == null) {
      return null;
    }
    if (h.refs == 0) {
      idle--;
      stats.idleFileClosed();
    }
    if (h.refs++ == 0) {
      stats.fileOpened();
    }
    return h;
  }

  private synchronized void release(Handle h) {
    if (h.refs <= 0) {
      throw new IllegalStateException("data file " + h.key.path() + " released too often");
    }
    if (--h.refs > 0) {
      return;
    }
    stats.fileClosed();
    if (h.forgotten) {
      close(h);
      return;
    }
    idle++;
    stats.idleFileOpened();
    trimIdle(maxIdleFiles);
  }

  /** Closes the application's idle files now and its busy ones when their replies finish. */
  synchronized void forgetApplication(String appId) {
    List<Handle> toClose = new ArrayList<>();
    for (Iterator<Handle> it = files.values().iterator(); it.hasNext(); ) {
      Handle h = it.next();
      if (h.key.appId().equals(appId)) {
        it.remove();
        h.forgotten = true;
        if (h.refs == 0) {
          idle--;
          stats.idleFileClosed();
          toClose.add(h);
        }
      }
    }
    toClose.forEach(DataFiles::close);
  }

  /** Closes every idle file (the server is stopping; busy ones close with their replies). */
  synchronized void closeIdle() {
    trimIdle(0);
  }

  private void trimIdle(int keep) {
    for (Iterator<Map.Entry<Key, Handle>> it = files.entrySet().iterator();
        idle > keep && it.hasNext(); ) {
      Handle h = it.next().getValue();
      if (h.refs == 0) {
        it.remove();
        idle--;
        stats.idleFileClosed();
        close(h);
      }
    }
  }

  private static void close(Handle h) {
    try {
      h.channel.close();
    } catch (IOException e) {
      // read-only file; nothing to lose
    }
  }
}
