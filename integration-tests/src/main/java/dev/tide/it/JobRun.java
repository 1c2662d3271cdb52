package dev.tide.it;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One finished submission: the client's exit code and terminal output, the application id and
 * how long it took from submit to the client's return.
 */
public record JobRun(int exitCode, String output, String appId, long wallMillis) {
  /**
   * Event logs that hold a {@code jobEnd}, by full path (the file system's address included, so
   * a later cluster's log is never mistaken for one): they never again belong to a running
   * application.
   */
  private static final Set<Path> ENDED_LOGS = ConcurrentHashMap.newKeySet();

  /** The application's event log, written by its driver and AM. */
  public List<EventLine> events(FileSystem fs, String eventLogDir) throws IOException {
    try (InputStream in = fs.open(EventLog.pathFor(eventLogDir, appId))) {
      return EventLine.readAll(in);
    }
  }

  public static List<EventLine> named(List<EventLine> events, EventName name) {
    return events.stream().filter(e -> e.is(name)).collect(Collectors.toList());
  }

  /**
   * The event logs under {@code eventLogDir} of applications running now (a {@code jobStart},
   * no {@code jobEnd} yet), as they are now; empty before any application started.
   */
  public static List<List<EventLine>> runningEventLogs(FileSystem fs, String eventLogDir)
      throws IOException {
    Path dir = new Path(eventLogDir);
    List<List<EventLine>> running = new ArrayList<>();
    if (!fs.exists(dir)) {
      return running;
    }
    for (FileStatus log : fs.listStatus(dir)) {
      if (ENDED_LOGS.contains(log.getPath())) {
        continue; // tests poll this: the logs of earlier applications are not read again
      }
      List<EventLine> events;
      try (InputStream in = fs.open(log.getPath())) {
        events = EventLine.readAll(in);
      }
      if (!named(events, EventName.JOB_END).isEmpty()) {
        ENDED_LOGS.add(log.getPath());
      } else if (!named(events, EventName.JOB_START).isEmpty()) {
        running.add(events); // (a log just created may not hold its jobStart yet)
      }
    }
    return running;
  }

  /** The application id of an event log ({@code jobStart}'s {@code app}). */
  public static String appId(List<EventLine> events) {
    return named(events, EventName.JOB_START).get(0).get("app");
  }

  /**
   * Every line of a job's output: the file itself, or every {@code part-*} file under the
   * directory, in name order.
   */
  public static List<String> outputLines(FileSystem fs, String path) throws IOException {
    Path p = new Path(path);
    List<Path> files = new ArrayList<>();
    if (fs.getFileStatus(p).isFile()) {
      files.add(p);
    } else {
      for (FileStatus s : fs.listStatus(p)) {
        if (s.getPath().getName().startsWith("part-")) {
          files.add(s.getPath());
        }
      }
      files.sort(null);
    }
    List<String> lines = new ArrayList<>();
    for (Path file : files) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(file),
          StandardCharsets.UTF_8))) {
        in.lines().forEach(lines::add);
      }
    }
    return lines;
  }
}
