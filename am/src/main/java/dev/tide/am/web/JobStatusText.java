package dev.tide.am.web;

import dev.tide.driver.JobStatus;
import java.util.HashMap;
import java.util.Map;

/**
 * The AM's {@code /status} body: one {@code key=value} line per field of {@link JobStatus}, in
 * this order:
 * <pre>
 * jobName=wordcount
 * stageIndex=1
 * stageCount=2
 * tasksDone=12
 * tasksTotal=40
 * pendingTasks=20
 * runningTasks=8
 * executorsRunning=3
 * targetExecutors=4
 * progress=0.3
 * waitingReason=nodes excluded h1,h2 (executor failures)
 * streaming=
 * damagedMapOutputs=0
 * </pre>
 * Unknown keys are ignored when parsing, so fields can be added; a missing
 * {@code waitingReason} or {@code streaming} (an older AM) reads as empty, a missing
 * {@code damagedMapOutputs} as 0. Stateless and thread-safe.
 */
public final class JobStatusText {
  private JobStatusText() {}

  public static String format(JobStatus status) {
    StringBuilder text = new StringBuilder();
    line(text, "jobName", status.jobName().replace('\n', ' '));
    line(text, "stageIndex", status.stageIndex());
    line(text, "stageCount", status.stageCount());
    line(text, "tasksDone", status.tasksDone());
    line(text, "tasksTotal", status.tasksTotal());
    line(text, "pendingTasks", status.pendingTasks());
    line(text, "runningTasks", status.runningTasks());
    line(text, "executorsRunning", status.executorsRunning());
    line(text, "targetExecutors", status.targetExecutors());
    line(text, "progress", status.progress());
    line(text, "waitingReason", status.waitingReason().replace('\n', ' '));
    line(text, "streaming", status.streaming().replace('\n', ' '));
    line(text, "damagedMapOutputs", status.damagedMapOutputs());
    return text.toString();
  }

  /** @throws IllegalArgumentException naming the field when a line is missing or malformed */
  public static JobStatus parse(String text) {
    Map<String, String> fields = new HashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return new JobStatus(fields.getOrDefault("jobName", ""), intField(fields, "stageIndex"),
        intField(fields, "stageCount"), intField(fields, "tasksDone"),
        intField(fields, "tasksTotal"), intField(fields, "pendingTasks"),
        intField(fields, "runningTasks"), intField(fields, "executorsRunning"),
        intField(fields, "targetExecutors"), floatField(fields, "progress"),
        fields.getOrDefault("waitingReason", ""), fields.getOrDefault("streaming", ""),
        fields.containsKey("damagedMapOutputs") ? intField(fields, "damagedMapOutputs") : 0);
  }

  private static void line(StringBuilder text, String key, Object value) {
    text.append(key).append('=').append(value).append('\n');
  }

  private static int intField(Map<String, String> fields, String key) {
    String value = fields.get(key);
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("status field " + key + " = '" + value
          + "' is not an integer", e);
    }
  }

  private static float floatField(Map<String, String> fields, String key) {
    String value = fields.get(key);
    try {
      return Float.parseFloat(value);
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException("status field " + key + " = '" + value
          + "' is not a number", e);
    }
  }
}
