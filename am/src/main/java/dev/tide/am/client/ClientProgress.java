package dev.tide.am.client;

import dev.tide.driver.JobStatus;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * What the client tells the user while an application runs, beyond its state changes: the job's
 * progress when it changed, that a new ApplicationMaster attempt started the job over (from the
 * ResourceManager's report), and that map outputs were found damaged on a node's disk (from the
 * AM's {@code /status}). Each method returns the lines to print now, none when nothing changed.
 * Not thread-safe: the client's monitor loop owns it.
 */
final class ClientProgress {
  private final ApplicationId appId;
  private ApplicationAttemptId lastAttempt;
  private String lastProgress;
  private int damagedMapOutputs;

  ClientProgress(ApplicationId appId) {
    this.appId = appId;
  }

  /** The lines for the application's current attempt, as the RM reports it (may be null). */
  List<String> attempt(ApplicationAttemptId current) {
    if (current == null || current.equals(lastAttempt)) {
      return List.of();
    }
    ApplicationAttemptId previous = lastAttempt;
    lastAttempt = current;
    if (previous == null) {
      return List.of();
    }
    return List.of(appId + " ApplicationMaster attempt " + current.getAttemptId()
        + " started (attempt " + previous.getAttemptId() + " ended): the job starts over");
  }

  /** The lines for the job's status as the AM reports it. */
  List<String> status(JobStatus status) {
    List<String> lines = new ArrayList<>();
    String progress = status.describe();
    if (!progress.equals(lastProgress)) {
      lines.add(appId + " RUNNING " + progress);
      lastProgress = progress;
    }
    int more = status.damagedMapOutputs() - damagedMapOutputs;
    if (more > 0) {
      damagedMapOutputs = status.damagedMapOutputs();
      lines.add(appId + " " + more + (more == 1
          ? " map output found damaged on its node's disk (" + damagedMapOutputs
              + " so far): its map is rerun"
          : " map outputs found damaged on their node's disk (" + damagedMapOutputs
              + " so far): their maps are rerun")
          + "; the event log's mapOutputLost events say where");
    }
    return lines;
  }
}
