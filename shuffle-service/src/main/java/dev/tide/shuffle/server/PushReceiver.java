package dev.tide.shuffle.server;

import dev.tide.network.LogSafe;
import dev.tide.shuffle.MapOutputCommitter;
import dev.tide.shuffle.MapOutputIndex;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.PushData;
import dev.tide.shuffle.protocol.PushOpen;
import dev.tide.shuffle.protocol.PushReply;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of pushes (PUSH_OPEN, PUSH_DATA) on one authenticated connection: another
 * service sends a map output of the connection's application; it is written to a temporary file
 * in the application's local dir, each piece checked against its CRC32C and each segment
 * against the CRC32C its map task wrote into the index, and only when every byte arrived and
 * passed is it committed ({@link MapOutputCommitter}: data then index renamed atomically; an
 * intact output of the same map already there is kept). Then the answer is a PUSH_REPLY;
 * otherwise an ERROR (CORRUPT for a checksum, FORBIDDEN where the application has no local dir,
 * BAD_REQUEST for pieces out of order or past the length, BUSY at a limit) and the temporary
 * file is deleted; later pieces of a refused push are dropped. Paths come only from the
 * registered user, the application id and the ids (ints).
 *
 * <p>Bounds: {@link #MAX_OPEN_PUSHES} open pushes per connection; pieces waiting to be written
 * count per connection (over {@link #MAX_QUEUED_BYTES} the connection is no longer read from,
 * {@link #lagging()}) and over the server ({@code maxQueuedBytes}: past it a push is refused
 * BUSY). File work runs in order on the server's one push thread ({@code files}).
 *
 * <p>Threading: the maps and counters are confined to the channel's event loop; an
 * {@link Incoming}'s file state is touched only on the push thread.
 */
final class PushReceiver {
  private static final Logger LOG = LoggerFactory.getLogger(PushReceiver.class);
  static final int MAX_OPEN_PUSHES = 4;
  static final long MAX_QUEUED_BYTES = 4L << 20;
  /** Refused pushes whose late pieces are dropped quietly. */
  private static final int REMEMBERED_REFUSALS = 64;

  /** Where answers go (the handler's reply, counted in flight); called on the event loop. */
  interface Answers {
    void reply(ShuffleMessage message);

    /** Pieces were written: the connection may be read again. */
    void progressed();
  }

  private final MapOutputResolver resolver;
  private final Executor files;
  private final ServerStats stats;
  private final AtomicLong serverQueuedBytes;
  private final long maxServerQueuedBytes;
  private final EventExecutor eventLoop;
  private final Answers answers;
  private final int retryAfterMillis;
  private final Map<Long, Incoming> open = new HashMap<>();
  private final LinkedHashSet<Long> refused = new LinkedHashSet<>();
  private long queuedBytes;

  PushReceiver(MapOutputResolver resolver, Executor files, ServerStats stats,
      AtomicLong serverQueuedBytes, long maxServerQueuedBytes, EventExecutor eventLoop,
      Answers answers, int retryAfterMillis) {
    this.retryAfterMillis = retryAfterMillis;
    this.resolver = resolver;
    this.files = files;
    this.stats = stats;
    this.serverQueuedBytes = serverQueuedBytes;
    this.maxServerQueuedBytes = maxServerQueuedBytes;
    this.eventLoop = eventLoop;
    this.answers = answers;
  }

  /** Whether this connection's pieces waiting to be written are past the bound. */
  boolean lagging() {
    return queuedBytes > MAX_QUEUED_BYTES;
  }

  /** A push starts; {@code app} is the connection's, checked registered by the caller. */
  void onOpen(RegisteredApp app, PushOpen push) {
    long id = push.requestId();
    if (open.containsKey(id)) {
      refuse(id, ErrorCode.BAD_REQUEST, "push " + id + " is open already on this connection");
      return;
    }
    if (open.size() >= MAX_OPEN_PUSHES) {
      refuse(id, ErrorCode.BUSY, "this connection has " + open.size() + " pushes open");
      return;
    }
    String what = "map output " + push.shuffleId() + "/" + push.mapId() + " of " + app.appId();
    MapOutputIndex index;
    try {
      index = MapOutputIndex.decode(push.index(), "pushed index of " + what);
    } catch (IOException e) {
      refuse(id, ErrorCode.CORRUPT, "the index of pushed " + what + " does not parse: "
          + e.getMessage());
      return;
    }
    if (index.dataLength() != push.dataLength()) {
      refuse(id, ErrorCode.BAD_REQUEST, "pushed " + what + " announces " + push.dataLength()
          + " data bytes but its index accounts for " + index.dataLength());
      return;
    }
    Incoming in = new Incoming(id, what, push.shuffleId(), push.mapId(), index);
    open.put(id, in);
    onFiles(in, 0, () -> in.start(app.appId(), resolver.existingAppDirs(app)));
  }

  /** A PUSH_OPEN was refused before it got here (FORBIDDEN): its pieces are dropped quietly. */
  void refusedElsewhere(long id) {
    stats.pushRefused();
    remember(id);
  }

  /** The next piece of an open push. */
  void onData(PushData piece) {
    long id = piece.requestId();
    Incoming in = open.get(id);
    if (in == null) {
      if (!refused.contains(id)) {
        answers.reply(new ErrorReply(id, ErrorCode.BAD_REQUEST, "no push " + id
            + " is open on this connection"));
      }
      return;
    }
    int n = piece.data().length;
    if (piece.offset() != in.accepted) {
      fail(in, ErrorCode.BAD_REQUEST, "piece of " + in.what + " at offset " + piece.offset()
          + "; the next byte is " + in.accepted);
      return;
    }
    if (n > in.index.dataLength() - in.accepted) {
      fail(in, ErrorCode.BAD_REQUEST, "piece of " + in.what + " at offset " + piece.offset()
          + " of " + n + " bytes goes past its length " + in.index.dataLength());
      return;
    }
    long total = serverQueuedBytes.addAndGet(n);
    if (total - n > 0 && total > maxServerQueuedBytes) {
      serverQueuedBytes.addAndGet(-n);
      fail(in, ErrorCode.BUSY, "the service has " + (total - n) + " pushed bytes waiting to be"
          + " written");
      return;
    }
    in.accepted += n;
    queuedBytes += n;
    onFiles(in, n, () -> in.write(piece));
  }

  /** The connection closed: open pushes are dropped and their temporary files deleted. */
  void closed() {
    for (Incoming in : List.copyOf(open.values())) {
      open.remove(in.id);
      in.failedOnLoop = true;
      runOnFiles(in::discard);
    }
  }

  /**
   * Runs {@code step} on the push thread; its outcome (done, failed, or neither) comes back to
   * the event loop, where {@code bytes} stop counting as queued.
   */
  private void onFiles(Incoming in, long bytes, FileStep step) {
    runOnFiles(() -> {
      Outcome outcome;
      if (in.failedOnFiles) {
        outcome = null; // refused already: later pieces are dropped
      } else {
        try {
          outcome = step.run();
        } catch (PushRefused e) {
          in.discard();
          outcome = new Outcome(e.code, e.getMessage());
        } catch (IOException | RuntimeException e) {
          in.discard();
          LOG.warn("writing pushed {} failed", in.what, e);
          outcome = new Outcome(ErrorCode.INTERNAL, "writing pushed " + in.what + " failed: " + e);
        }
      }
      Outcome done = outcome;
      try {
        eventLoop.execute(() -> stepped(in, bytes, done));
      } catch (RejectedExecutionException e) {
        serverQueuedBytes.addAndGet(-bytes); // the event loop is shutting down
        in.discard();
      }
    }, bytes);
  }

  private void runOnFiles(Runnable work) {
    runOnFiles(work, 0);
  }

  private void runOnFiles(Runnable work, long bytes) {
    try {
      files.execute(work);
    } catch (RejectedExecutionException e) {
      serverQueuedBytes.addAndGet(-bytes); // the server is closing
    }
  }

  /** On the event loop: what a file step ended with. */
  private void stepped(Incoming in, long bytes, Outcome outcome) {
    queuedBytes -= bytes;
    serverQueuedBytes.addAndGet(-bytes);
    if (outcome != null && !in.failedOnLoop) {
      open.remove(in.id);
      if (outcome.code == null) {
        stats.pushReceived(in.index.dataLength());
        answers.reply(new PushReply(in.id, in.index.dataLength()));
      } else {
        remember(in.id);
        stats.pushRefused();
        LOG.warn("refused push {} of {}: {}", in.id, in.what, LogSafe.text(outcome.message, 500));
        answers.reply(new ErrorReply(in.id, outcome.code, outcome.message));
      }
    }
    answers.progressed();
  }

  private void fail(Incoming in, ErrorCode code, String why) {
    open.remove(in.id);
    in.failedOnLoop = true;
    runOnFiles(in::discard);
    refuse(in.id, code, why);
  }

  private void refuse(long id, ErrorCode code, String why) {
    remember(id);
    stats.pushRefused();
    LOG.warn("refused push {}: {}", id, LogSafe.text(why, 500));
    answers.reply(code == ErrorCode.BUSY ? ErrorReply.busy(id, why + "; retry later", retryAfterMillis)
        : new ErrorReply(id, code, why));
  }

  private void remember(long id) {
    refused.add(id);
    if (refused.size() > REMEMBERED_REFUSALS) {
      Iterator<Long> oldest = refused.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  @FunctionalInterface
  private interface FileStep {
    /** @return the push's outcome once decided (committed or refused), null while it goes on */
    Outcome run() throws IOException, PushRefused;
  }

  /** A decided push: {@code code} null for committed. */
  private record Outcome(ErrorCode code, String message) {
    static final Outcome COMMITTED = new Outcome(null, null);
  }

  private static final class PushRefused extends Exception {
    final ErrorCode code;

    PushRefused(ErrorCode code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }

  /** One push being received. */
  private static final class Incoming {
    final long id;
    final String what;
    final int shuffleId;
    final int mapId;
    final MapOutputIndex index;
    /** Event loop: bytes accepted so far; whether it was refused there. */
    long accepted;
    boolean failedOnLoop;
    // Push thread only:
    Path appDir;
    Path temp;
    FileChannel out;
    long written;
    int segment;
    final CRC32C segmentCrc = new CRC32C();
    boolean failedOnFiles;

    Incoming(long id, String what, int shuffleId, int mapId, MapOutputIndex index) {
      this.id = id;
      this.what = what;
      this.shuffleId = shuffleId;
      this.mapId = mapId;
      this.index = index;
    }

    /** Opens the temporary file in the app dir the writer's placement picks among {@code dirs}. */
    Outcome start(String appId, List<Path> dirs) throws IOException, PushRefused {
      if (dirs.isEmpty()) {
        throw new PushRefused(ErrorCode.FORBIDDEN, "application " + appId + " has no local dir"
            + " on this node (it never ran a container here); push its map outputs to a node"
            + " where it did");
      }
      appDir = ShuffleLayout.chooseAppDir(dirs, shuffleId, mapId);
      temp = MapOutputCommitter.tempDataFile(appDir, shuffleId, mapId, id);
      out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      return index.dataLength() == 0 ? finish() : null;
    }

    Outcome write(PushData piece) throws IOException, PushRefused {
      byte[] b = piece.data();
      if (!piece.intact()) {
        throw new PushRefused(ErrorCode.CORRUPT, "piece of pushed " + what + " at offset "
            + piece.offset() + " fails its CRC32C: damaged on the way");
      }
      ByteBuffer buf = ByteBuffer.wrap(b);
      while (buf.hasRemaining()) {
        out.write(buf);
      }
      int off = 0;
      while (true) {
        checkEndedSegments();
        if (off == b.length) {
          break;
        }
        int take = (int) Math.min(b.length - off, index.offset(segment + 1) - written);
        segmentCrc.update(b, off, take);
        written += take;
        off += take;
      }
      return written == index.dataLength() ? finish() : null;
    }

    /** Checks every segment that ends at {@link #written} against the index's CRC32C. */
    private void checkEndedSegments() throws PushRefused {
      while (segment < index.partitions() && index.offset(segment + 1) == written) {
        if (index.hasChecksums() && (int) segmentCrc.getValue() != index.checksum(segment)) {
          throw new PushRefused(ErrorCode.CORRUPT, "segment " + segment + " of pushed " + what
              + " fails the CRC32C its map task wrote");
        }
        segment++;
        segmentCrc.reset();
      }
    }

    private Outcome finish() throws IOException, PushRefused {
      checkEndedSegments();
      out.close();
      long[] lengths = new long[index.partitions()];
      for (int r = 0; r < lengths.length; r++) {
        lengths[r] = index.offset(r + 1) - index.offset(r);
      }
      MapOutputCommitter.commit(appDir, shuffleId, mapId, temp, lengths,
          index.hasChecksums() ? index.checksums() : null);
      temp = null;
      return Outcome.COMMITTED;
    }

    /** Closes and deletes what was written; the push is over. */
    void discard() {
      failedOnFiles = true;
      try {
        if (out != null) {
          out.close();
        }
        if (temp != null) {
          Files.deleteIfExists(temp);
        }
      } catch (IOException e) {
        LOG.warn("cannot delete the temporary file {} of refused push {}", temp, id, e);
      }
      temp = null;
    }
  }
}
