package dev.tide.driver.events;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's event log: one JSON object per line ({@link EventLine}, schema and events
 * in docs/event-log.md), each stamped with the time it happened. Written to {@code <dir>/<appId>.events} in any
 * Hadoop FileSystem by a writer thread of its own, which writes what has been recorded and
 * flushes it ({@code hflush}) in one go, within milliseconds, so tools can follow a running job:
 * {@link #record} never waits for the file system (on HDFS a flush is a pipeline round trip;
 * the driver's event loop made one per event, and a burst of registrations or task ends waited
 * on them in turn). Up to {@value #QUEUE_LINES} lines wait for the writer; beyond that
 * {@link #record} waits (nothing is dropped). {@link #close} writes what is left and closes the
 * file. Thread-safe; a failing log never fails the job (it is disabled after the first error).
 */
public final class EventLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventLog.class);
  /** Lines recorded and not yet written beyond which {@link #record} waits for the writer. */
  static final int QUEUE_LINES = 65_536;
  /** How long {@link #close} waits for the writer to write what is left. */
  private static final long CLOSE_WAIT_MILLIS = 30_000;
  private static final String END = new String("end of log");

  private final LongSupplier clock;
  private Consumer<EventLine> listener;
  private final String where;
  /** Null when the log is disabled (or has failed). */
  private volatile OutputStream out;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(QUEUE_LINES);
  private final Thread writer;
  private boolean closed;

  private EventLog(OutputStream out, String where, LongSupplier clock) {
    this.out = out;
    this.where = where;
    this.clock = clock;
    if (out == null) {
      this.writer = null;
    } else {
      this.writer = new Thread(this::writeLines, "tide-event-log");
      writer.setDaemon(true);
      writer.start();
    }
  }

  /** A log written to {@code out} (tests: any stream; flushed instead of hflushed). */
  static EventLog to(OutputStream out, String where, LongSupplier clock) {
    return new EventLog(out, where, clock);
  }

  /** A log that records nothing. */
  public static EventLog disabled() {
    return new EventLog(null, "(disabled)", System::currentTimeMillis);
  }

  /** Opens {@code <dir>/<appId>.events}, or a disabled log when {@code dir} is empty. */
  public static EventLog open(Configuration conf, String dir, String appId,
      LongSupplier clock) throws IOException {
    if (dir == null || dir.isEmpty()) {
      return disabled();
    }
    Path path = new Path(dir, appId + ".events");
    FileSystem fs = path.getFileSystem(conf);
    Path parent = path.getParent();
    if (!fs.exists(parent)) {
      // Shared by every user's applications, as /tmp: anyone writes, only owners delete.
      fs.mkdirs(parent);
      try {
        fs.setPermission(parent, new FsPermission((short) 01777));
      } catch (IOException e) {
        LOG.warn("Could not make the event log directory {} writable for all users", parent, e);
      }
    }
    // On file:// the checksummed LocalFileSystem keeps what a flush hands it in a 4 KiB buffer
    // (its hflush does not reach the file), so a reader following the log would see events late
    // or not until the job ends; its raw file system writes each flush through.
    FileSystem writeFs = fs instanceof LocalFileSystem local ? local.getRawFileSystem() : fs;
    FSDataOutputStream stream = writeFs.create(path, true);
    LOG.info("Writing the event log to {}", path);
    return new EventLog(stream, path.toString(), clock);
  }

  public static Path pathFor(String dir, String appId) {
    return new Path(dir, appId + ".events");
  }

  /**
   * Also hands every event to {@code listener} (the AM's web UI), whether or not a file is
   * written; it runs on the recording thread and must be quick.
   */
  public synchronized void setListener(Consumer<EventLine> listener) {
    this.listener = listener;
  }

  /** Records one event; {@code keyValues} alternate keys and values. */
  public synchronized void record(EventName event, Object... keyValues) {
    if (out == null && listener == null) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      fields.put(String.valueOf(keyValues[i]), keyValues[i + 1]);
    }
    long now = clock.getAsLong();
    if (listener != null) {
      Map<String, String> text = new LinkedHashMap<>();
      fields.forEach((k, v) -> text.put(k, String.valueOf(v)));
      try {
        listener.accept(new EventLine(now, event.wireName(), text));
      } catch (RuntimeException e) {
        LOG.warn("The event listener failed on {}", event, e);
      }
    }
    if (out == null || closed) {
      return;
    }
    enqueue(EventLine.json(now, event.wireName(), fields) + "\n");
  }

  private void enqueue(String line) {
    try {
      lines.put(line);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Interrupted while the event log {} was full; an event is not written", where);
    }
  }

  /** The writer thread: writes every line recorded so far, flushes, and waits for more. */
  private void writeLines() {
    List<String> batch = new ArrayList<>();
    boolean end = false;
    while (!end) {
      try {
        batch.add(lines.take());
      } catch (InterruptedException e) {
        break; // close() gave up waiting
      }
      lines.drainTo(batch);
      OutputStream stream = out;
      try {
        for (String line : batch) {
          if (line == END) {
            end = true;
            break;
          }
          if (stream != null) {
            stream.write(line.getBytes(StandardCharsets.UTF_8));
          }
        }
        if (stream != null) {
          if (stream instanceof FSDataOutputStream fsOut) {
            fsOut.hflush();
          } else {
            stream.flush();
          }
        }
      } catch (IOException e) {
        LOG.warn("Event log {} failed; no more events will be written", where, e);
        closeStream();
      }
      batch.clear();
    }
    closeStream();
  }

  private void closeStream() {
    OutputStream stream = out;
    out = null;
    if (stream != null) {
      try {
        stream.close();
      } catch (IOException e) {
        LOG.warn("Closing event log {} failed", where, e);
      }
    }
  }

  /**
   * Writes what has been recorded and closes the file (waiting up to 30 s for the file system);
   * later events are not written.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed || writer == null) {
        closed = true;
        return;
      }
      closed = true;
    }
    enqueue(END);
    try {
      writer.join(CLOSE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      LOG.warn("The event log {} was not written in {} ms; closing it", where,
          CLOSE_WAIT_MILLIS);
      writer.interrupt();
    }
  }
}
