package dev.tide.driver.events;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How a job ended, as its {@code jobEnd} event's field {@code state} says: {@code succeeded},
 * {@code failed} or {@code killed}. A log written before that field existed has only
 * {@code succeeded} (true or false), which gives succeeded or failed.
 */
public enum JobEndState {
  SUCCEEDED, FAILED, KILLED;

  /** The names the field may hold. */
  public static final List<String> NAMES =
      Arrays.stream(values()).map(JobEndState::text).toList();

  /** As written in the event log and shown: lower case. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The state a field value names, or empty. */
  public static Optional<JobEndState> of(String text) {
    return Arrays.stream(values()).filter(s -> s.text().equals(text)).findFirst();
  }

  /** The state of a {@code jobEnd} event: its {@code state}, else from {@code succeeded}. */
  public static JobEndState of(EventLine jobEnd) {
    return of(jobEnd.get("state") == null ? "" : jobEnd.get("state")).orElse(
        "true".equals(jobEnd.get("succeeded")) ? SUCCEEDED : FAILED);
  }
}
