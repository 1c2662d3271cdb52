package dev.tide.am.client;

import dev.tide.am.web.AppModel;
import dev.tide.am.web.UiPages;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventLogReader;
import dev.tide.driver.events.EventTimeline;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code tide timeline} and {@code tide history}: an application's event log, by id (in
 * {@code tide.eventLog.dir}) or path, as a text timeline or as the web UI's pages in one HTML
 * file. A log that cannot be read ({@link EventLogReader}: not an event log, a damaged line, an
 * empty file) is one line on stderr naming the file, the line and what is wrong, exit 1, no
 * report; a log without its {@code jobEnd} is reported as incomplete.
 */
final class EventLogCommands {
  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  EventLogCommands(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  /** {@code tide timeline <appId | path>}. */
  int timeline(List<String> args) throws IOException {
    if (args.size() != 1) {
      err.println("tide: usage: tide timeline <applicationId | event log path>");
      return 2;
    }
    Optional<Replay> replay = replay(args.get(0));
    if (replay.isEmpty()) {
      return 1;
    }
    replay.get().announce();
    out.print(EventTimeline.render(replay.get().log().events()));
    return 0;
  }

  /** {@code tide history <appId | path> [report.html]}; default {@code ./<appId>.html}. */
  int history(List<String> args) throws IOException {
    if (args.isEmpty() || args.size() > 2) {
      err.println("tide: usage: tide history <applicationId | event log path> [report.html]");
      return 2;
    }
    Optional<Replay> replay = replay(args.get(0));
    if (replay.isEmpty()) {
      return 1;
    }
    AppModel model = replay.get().model();
    replay.get().announce();
    File report = new File(args.size() == 2 ? args.get(1)
        : (model.appId().isEmpty() ? "tide-history" : model.appId()) + ".html");
    Files.writeString(report.toPath(), UiPages.report(model));
    out.println("Wrote the history report of " + model.appId() + " (" + model.result() + ") to "
        + report.getAbsolutePath());
    return 0;
  }

  /** A log read whole and replayed into the UI's model. */
  private record Replay(String name, EventLogReader.Log log, AppModel model,
      PrintStream out, PrintStream err) {
    void announce() {
      out.println("Event log " + name + ":");
      log.dropped().ifPresent(dropped -> err.println("tide: " + name + " " + dropped));
    }
  }

  /** The log read and replayed; else empty, having said why in one line. */
  private Optional<Replay> replay(String arg) throws IOException {
    Path path = arg.startsWith("application_") && !arg.contains("/")
        ? EventLog.pathFor(TideOptions.EVENT_LOG_DIR.get(conf), arg) : new Path(arg);
    FileSystem fs = path.getFileSystem(conf);
    String name = fs.makeQualified(path).toString();
    if (!fs.exists(path)) {
      err.println("tide: no event log " + name + " (tide.eventLog.dir is "
          + TideOptions.EVENT_LOG_DIR.get(conf) + "; was the event log off for it?)");
      return Optional.empty();
    }
    if (fs.getFileStatus(path).isDirectory()) {
      err.println("tide: " + name + " is a directory, not an event log");
      return Optional.empty();
    }
    EventLogReader.Log log;
    try (InputStream in = fs.open(path)) {
      log = EventLogReader.read(in, name);
    } catch (EventLogReader.BadEventLogException e) {
      err.println("tide: " + e.getMessage());
      return Optional.empty();
    }
    AppModel model = new AppModel();
    List<EventLine> events = log.events();
    for (int i = 0; i < events.size(); i++) {
      try {
        model.apply(events.get(i));
      } catch (RuntimeException e) {
        err.println("tide: " + name + " line " + log.lines().get(i) + ": event "
            + events.get(i).event() + " cannot be shown: " + e.getMessage());
        return Optional.empty();
      }
    }
    model.endOfLog();
    return Optional.of(new Replay(name, log, model, out, err));
  }
}
