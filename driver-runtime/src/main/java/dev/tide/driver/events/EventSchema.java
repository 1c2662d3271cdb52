package dev.tide.driver.events;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fields that readers of the event log (the web UI's model, the history report, the
 * timeline) rely on, per event: each must be present, and the numeric ones whole numbers, the
 * boolean ones {@code true} or {@code false}. Events and fields not listed here are free
 * (docs/event-log.md: readers ignore what they do not know). {@link #problem} says what is
 * wrong with one line, so that a damaged log is refused naming the line instead of failing
 * somewhere in a page.
 */
public final class EventSchema {
  private EventSchema() {}

  /** An event's fields: those that must be present, whole numbers, booleans. */
  private record Fields(List<String> text, List<String> numbers, List<String> booleans) {}

  private static Fields fields(List<String> text, List<String> numbers) {
    return new Fields(text, numbers, List.of());
  }

  private static final Map<EventName, Fields> REQUIRED = Map.ofEntries(
      Map.entry(EventName.JOB_START, fields(List.of("app", "job"), List.of())),
      Map.entry(EventName.JOB_END, new Fields(List.of(), List.of(), List.of("succeeded"))),
      Map.entry(EventName.PLAN_START, fields(List.of("plan"), List.of("stages", "tasks"))),
      Map.entry(EventName.PLAN_END, new Fields(List.of("plan"), List.of(), List.of("succeeded"))),
      Map.entry(EventName.STAGE_SUBMITTED, fields(List.of("stage", "name"), List.of("tasks"))),
      Map.entry(EventName.STAGE_COMPLETED, fields(List.of("stage"), List.of())),
      Map.entry(EventName.TASK_START, fields(List.of("task", "stage", "executor"), List.of())),
      Map.entry(EventName.TASK_END, fields(List.of("task", "stage", "executor", "result"), List.of())),
      Map.entry(EventName.EXECUTOR_LAUNCHED, fields(List.of("executor", "container", "host"),
          List.of())),
      Map.entry(EventName.EXECUTOR_REGISTERED, fields(List.of("executor"), List.of())),
      Map.entry(EventName.EXECUTOR_ADDED, fields(List.of("executor"), List.of())),
      Map.entry(EventName.EXECUTOR_IDLE_REMOVAL, fields(List.of("executor"), List.of())),
      Map.entry(EventName.EXECUTOR_REMOVED, fields(List.of("executor", "reason"), List.of())),
      Map.entry(EventName.CONTAINER_COMPLETED, fields(List.of("container", "executor"),
          List.of("exitStatus"))),
      Map.entry(EventName.TARGET_CHANGED, fields(List.of("reason"), List.of("from", "target"))),
      Map.entry(EventName.STREAMING_ALLOCATION, fields(List.of("reason"),
          List.of("from", "target", "remove"))),
      Map.entry(EventName.TIMELINE, fields(List.of(),
          List.of("target", "executors", "pendingTasks", "runningTasks"))),
      Map.entry(EventName.BATCH_COMPLETED, fields(List.of(), List.of("batch", "records", "processingMs",
          "schedulingDelayMs", "executors", "target"))));

  /** What is wrong with this event, or empty when readers can use it. */
  public static Optional<String> problem(EventLine e) {
    Fields required = e.eventName().map(REQUIRED::get).orElse(null);
    if (required == null) {
      return Optional.empty();
    }
    for (List<String> keys : List.of(required.text(), required.numbers(), required.booleans())) {
      for (String key : keys) {
        if (e.get(key) == null) {
          return Optional.of("event " + e.event() + " has no field " + key);
        }
      }
    }
    for (String key : required.numbers()) {
      try {
        Long.parseLong(e.get(key));
      } catch (NumberFormatException ex) {
        return Optional.of("field " + key + " of event " + e.event() + " is not a whole"
            + " number: " + EventLine.excerpt(e.get(key)));
      }
    }
    for (String key : required.booleans()) {
      if (!e.get(key).equals("true") && !e.get(key).equals("false")) {
        return Optional.of("field " + key + " of event " + e.event() + " is not true or"
            + " false: " + EventLine.excerpt(e.get(key)));
      }
    }
    if (e.is(EventName.JOB_END) && e.get("state") != null
        && JobEndState.of(e.get("state")).isEmpty()) {
      return Optional.of("field state of event jobEnd is not one of " + JobEndState.NAMES
          + ": " + EventLine.excerpt(e.get("state")));
    }
    return Optional.empty();
  }
}
