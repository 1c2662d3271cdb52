package dev.tide.driver.events;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The text timeline of one application's event log ({@code bin/tide timeline}): one line per
 * event a person follows — executors coming and going and why, target changes, plans, stages,
 * batches, lost map outputs, the end (or that the log is incomplete) — timed from the application's start. Task-level events
 * and the once-a-second samples are left out (their effect shows in the summary), and so are a
 * streaming job's plans and stages (one per batch; its batch lines tell the story).
 */
public final class EventTimeline {
  /** What a streaming job's timeline leaves out: a plan and its stages per batch. */
  private static final Set<EventName> STREAM_HIDES = EnumSet.of(EventName.PLAN_START,
      EventName.PLAN_END, EventName.STAGE_SUBMITTED, EventName.STAGE_COMPLETED);

  private EventTimeline() {}

  public static String render(List<EventLine> events) {
    StringBuilder text = new StringBuilder();
    if (events.isEmpty()) {
      return "(the event log is empty)\n";
    }
    long t0 = events.get(0).timeMillis();
    int executors = 0;
    int peak = 0;
    int added = 0;
    int failed = 0;
    int preempted = 0;
    int lostOutputs = 0;
    long lastTarget = -1;
    Set<String> live = new HashSet<>();
    boolean ended = false;
    // A stream runs a plan per batch: its batch lines say enough.
    boolean stream = events.stream().anyMatch(e -> e.is(EventName.BATCH_SUBMITTED));
    for (EventLine e : events) {
      Optional<EventName> name = e.eventName();
      if (name.isEmpty() || stream && STREAM_HIDES.contains(name.get())) {
        continue; // an event this version does not know, or a streaming job's plan or stage
      }
      String line = switch (name.get()) {
        case JOB_START -> "job " + e.get("job") + " started (" + e.get("app") + ")";
        case PLAN_START -> "plan " + e.get("plan") + ": " + e.get("stages") + " stages, "
            + e.get("tasks") + " tasks";
        case PLAN_END -> "plan " + e.get("plan") + (e.get("succeeded").equals("true")
            ? " succeeded" : " failed");
        case STAGE_SUBMITTED -> "stage " + e.get("stage") + " (" + e.get("name") + ") submitted: "
            + e.get("tasks") + " tasks";
        case STAGE_COMPLETED -> "stage " + e.get("stage") + " (" + e.get("name") + ") completed";
        case EXECUTOR_LAUNCHED -> "executor " + e.get("executor") + " launched on "
            + e.get("host") + " in " + e.get("container");
        case EXECUTOR_REGISTERED -> "executor " + e.get("executor") + " registered ("
            + e.get("startupMs") + " ms after its JVM started)";
        case EXECUTOR_ADDED -> {
          if (live.add(e.get("executor"))) {
            added++;
            executors++;
            peak = Math.max(peak, executors);
          }
          yield null;
        }
        case EXECUTOR_IDLE_REMOVAL -> "executor " + e.get("executor") + " removed: "
            + (e.get("reason") == null ? "idle" : e.get("reason"));
        case EXECUTOR_REMOVED -> {
          if (live.remove(e.get("executor"))) {
            executors--;
          }
          yield "executor " + e.get("executor") + " gone: " + e.get("reason") + " (" + executors
              + " running)";
        }
        case CONTAINER_COMPLETED -> {
          if (!"true".equals(e.get("failure"))) {
            yield null;
          }
          failed++;
          yield "container " + e.get("container") + " of executor " + e.get("executor")
              + " failed (exit " + e.get("exitStatus") + "): " + e.get("diagnostics");
        }
        case NODE_EXCLUDED, NODE_EXCLUSION_LIFTED, NODE_EXCLUSION_ENDED ->
            e.event() + " " + e.get("node");
        case NODE_DECOMMISSIONING -> "node " + e.get("node") + " decommissioning"
            + (e.getLong("timeoutSeconds") < 0 ? " (no timeout)"
                : " (leaves in " + e.get("timeoutSeconds") + " s)") + ": no new work there";
        case NODE_LOST -> "node " + e.get("node") + " gone (" + e.get("state") + ")";
        case NODE_RUNNING -> "node " + e.get("node") + " runs again";
        case PREEMPTION_REQUESTED -> "YARN asks for resources back (preemption): "
            + e.get("memoryMb") + " MB, " + e.get("vcores") + " vcores; strict "
            + e.get("strictContainers");
        case EXECUTOR_PREEMPTED -> {
          preempted++;
          yield "executor " + e.get("executor") + " preempted (" + e.get("how") + "): "
              + e.get("reason");
        }
        case MAP_OUTPUT_LOST -> {
          lostOutputs++;
          yield "map output " + e.get("map") + " of stage " + e.get("stage") + " on "
              + e.get("host") + " lost (" + e.get("cause") + "), read by " + e.get("reader");
        }
        case CACHED_BLOCKS_LOST -> "cached blocks of executor " + e.get("executor") + " lost: "
            + e.get("blocks");
        case TIMELINE -> {
          long target = e.getLong("target");
          String change = target == lastTarget || lastTarget < 0 && target <= 0 ? null
              : "target " + Math.max(lastTarget, 0) + " -> " + target + " executors ("
                  + e.get("pendingTasks") + " tasks pending, " + e.get("runningTasks")
                  + " running)";
          lastTarget = target;
          yield change;
        }
        case STREAMING_ALLOCATION -> {
          lastTarget = e.getLong("target");
          yield "target " + e.get("from") + " -> " + e.get("target") + " executors"
              + (e.getLong("remove") > 0 ? ", removing " + e.get("remove") : "") + ": "
              + e.get("reason");
        }
        case BATCH_COMPLETED -> String.format("batch %s: %s records in %s ms, scheduling delay"
            + " %s ms, executors %s (target %s)%s", e.get("batch"), e.get("records"),
            e.get("processingMs"), e.get("schedulingDelayMs"), e.get("executors"),
            e.get("target"), "true".equals(e.get("delayed")) ? ", DELAYED" : "");
        case JOB_END -> {
          ended = true;
          yield "job " + JobEndState.of(e).text() + ": " + e.get("diagnostics");
        }
        default -> null;
      };
      if (line != null) {
        text.append(String.format("%9.1fs  %s%n", (e.timeMillis() - t0) / 1000.0, line));
      }
    }
    if (!ended) {
      text.append(String.format("%9.1fs  %s%n",
          (events.get(events.size() - 1).timeMillis() - t0) / 1000.0, "incomplete: the log ends"
              + " here, without jobEnd (the application still runs, or its ApplicationMaster"
              + " died)"));
    }
    text.append(String.format("executors: %d added, peak %d running, %d failed, %d preempted;"
        + " map outputs lost: %d%n", added, peak, failed, preempted, lostOutputs));
    return text.toString();
  }
}
