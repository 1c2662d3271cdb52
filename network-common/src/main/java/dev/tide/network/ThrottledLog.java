package dev.tide.network;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

/**
 * Log lines that a peer can cause once per connection or per frame, aggregated so that their
 * number does not grow with the peer's effort: per kind (a fixed string naming the event, never
 * a value from the wire), the first event of an interval is logged at once and the rest of that
 * interval only counted; the count is written as one line with the last such message when the
 * next event of that kind comes after the interval, or at {@link #flush} (the server calls it
 * every interval). So each kind writes at most two lines per interval. Exact counts belong in
 * the metrics; this only keeps the log readable and bounded. Thread-safe.
 */
public final class ThrottledLog {
  private enum Level { INFO, WARN }

  private final Logger log;
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** One kind's current interval: when it began, events counted but not logged, the last one. */
  private static final class Window {
    final Level level;
    long startNanos;
    long suppressed;
    String lastFormat;
    Object[] lastArgs;

    Window(Level level, long startNanos) {
      this.level = level;
      this.startNanos = startNanos;
    }
  }

  /**
   * @param interval how long after a logged event further events of its kind are only counted
   * @param nanoClock monotonic time in nanoseconds ({@code System::nanoTime}; a manual clock in
   *     tests)
   */
  public ThrottledLog(Logger log, Duration interval, LongSupplier nanoClock) {
    this.log = log;
    this.intervalNanos = interval.toNanos();
    this.nanoClock = nanoClock;
  }

  /** A WARN line of {@code kind}, or a count of it. {@code kind} must come from a fixed set. */
  public void warn(String kind, String format, Object... args) {
    event(Level.WARN, kind, format, args);
  }

  /** An INFO line of {@code kind}, or a count of it. {@code kind} must come from a fixed set. */
  public void info(String kind, String format, Object... args) {
    event(Level.INFO, kind, format, args);
  }

  private void event(Level level, String kind, String format, Object[] args) {
    if (!enabled(level)) {
      return;
    }
    long now = nanoClock.getAsLong();
    Window w = windows.computeIfAbsent(kind, k -> new Window(level, now - intervalNanos));
    String summary = null;
    boolean logNow;
    synchronized (w) {
      logNow = now - w.startNanos >= intervalNanos;
      if (logNow) {
        summary = summary(kind, w, now);
        w.startNanos = now;
      } else {
        w.suppressed++;
        w.lastFormat = format;
        w.lastArgs = args;
      }
    }
    if (summary != null) {
      write(level, summary);
    }
    if (logNow) {
      write(level, MessageFormatter.arrayFormat(format, args).getMessage());
    }
  }

  /** Writes the counts of intervals that have ended; call every interval. */
  public void flush() {
    long now = nanoClock.getAsLong();
    for (Map.Entry<String, Window> e : windows.entrySet()) {
      Window w = e.getValue();
      String summary;
      synchronized (w) {
        if (now - w.startNanos < intervalNanos) {
          continue;
        }
        summary = summary(e.getKey(), w, now);
      }
      if (summary != null) {
        write(w.level, summary);
      }
    }
  }

  /** The count line for a window that ended (and resets its count), or null if none. */
  private String summary(String kind, Window w, long now) {
    if (w.suppressed == 0) {
      return null;
    }
    String line = w.suppressed + " more " + kind + " in the "
        + Duration.ofNanos(now - w.startNanos).toMillis() + " ms since the last line; the last: "
        + MessageFormatter.arrayFormat(w.lastFormat, w.lastArgs).getMessage();
    w.suppressed = 0;
    w.lastFormat = null;
    w.lastArgs = null;
    return line;
  }

  private boolean enabled(Level level) {
    return level == Level.WARN ? log.isWarnEnabled() : log.isInfoEnabled();
  }

  private void write(Level level, String line) {
    if (level == Level.WARN) {
      log.warn(line);
    } else {
      log.info(line);
    }
  }
}
