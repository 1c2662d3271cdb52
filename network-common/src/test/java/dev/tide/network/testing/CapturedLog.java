package dev.tide.network.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

/**
 * The lines that loggers (by name) write while it is attached, as rendered messages; for tests
 * that assert what an operator would read in the log. Thread-safe; close to detach.
 */
public final class CapturedLog implements AutoCloseable {
  private final List<Logger> loggers = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();
  private final AppenderSkeleton appender = new AppenderSkeleton() {
    @Override
    protected void append(LoggingEvent event) {
      synchronized (lines) {
        lines.add(event.getLevel() + " " + event.getRenderedMessage());
      }
    }

    @Override
    public void close() {}

    @Override
    public boolean requiresLayout() {
      return false;
    }
  };

  /** Captures what the loggers named (class names, as SLF4J names them) write. */
  public CapturedLog(String... loggerNames) {
    for (String name : loggerNames) {
      Logger logger = Logger.getLogger(name);
      logger.addAppender(appender);
      loggers.add(logger);
    }
  }

  /** The lines so far, each {@code LEVEL message}. */
  public List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** Characters written so far (messages only, no layout). */
  public long chars() {
    return lines().stream().mapToLong(String::length).sum();
  }

  @Override
  public void close() {
    for (Logger logger : loggers) {
      logger.removeAppender(appender);
    }
  }
}
