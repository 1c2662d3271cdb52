package dev.tide.driver.events;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's event log: one JSON object per line ({@link EventLine}, schema and events
 * in docs/event-log.md), each stamped with the time it happened. Written to {@code <dir>/<appId>.events} in any
 * Hadoop FileSystem, flushed per line so tools can follow a running job. Thread-safe; a failing
 * log never fails the job (it is disabled after the first error).
 */
public final class EventLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventLog.class);

  private final LongSupplier clock;
  private Consumer<EventLine> listener;
  private OutputStream out;
  private final String where;

  private EventLog(OutputStream out, String where, LongSupplier clock) {
    this.out = out;
    this.where = where;
    this.clock = clock;
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
    FSDataOutputStream stream = fs.create(path, true);
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
  public synchronized void record(String event, Object... keyValues) {
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
        listener.accept(new EventLine(now, event, text));
      } catch (RuntimeException e) {
        LOG.warn("The event listener failed on {}", event, e);
      }
    }
    if (out == null) {
      return;
    }
    String line = EventLine.json(now, event, fields) + "\n";
    try {
      out.write(line.getBytes(StandardCharsets.UTF_8));
      if (out instanceof FSDataOutputStream fsOut) {
        fsOut.hflush();
      } else {
        out.flush();
      }
    } catch (IOException e) {
      LOG.warn("Event log {} failed; no more events will be written", where, e);
      closeQuietly();
    }
  }

  @Override
  public synchronized void close() {
    closeQuietly();
  }

  private void closeQuietly() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        LOG.warn("Closing event log {} failed", where, e);
      }
      out = null;
    }
  }
}
