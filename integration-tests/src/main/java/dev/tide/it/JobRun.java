package dev.tide.it;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;

/**
 * One finished submission: the client's exit code and terminal output, the application id and
 * how long it took from submit to the client's return.
 */
public record JobRun(int exitCode, String output, String appId, long wallMillis) {
  /** The application's event log, written by its driver and AM. */
  public List<EventLine> events(FileSystem fs, String eventLogDir) throws IOException {
    try (InputStream in = fs.open(EventLog.pathFor(eventLogDir, appId))) {
      return EventLine.readAll(in);
    }
  }

  public static List<EventLine> named(List<EventLine> events, String name) {
    return events.stream().filter(e -> e.event().equals(name)).collect(Collectors.toList());
  }
}
