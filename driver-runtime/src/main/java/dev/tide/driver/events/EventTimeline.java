package dev.tide.driver.events;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The text timeline of one application's event log ({@code bin/tide timeline}): one line per
 * event a person follows — executors coming and going and why, target changes, plans, stages,
 * batches, lost map outputs, the end — timed from the application's start. Task-level events
 * and the once-a-second samples are left out (their effect shows in the summary), and so are a
 * streaming job's plans and stages (one per batch; its batch lines tell the story).
 */
public final class EventTimeline {
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
    int lostOutputs = 0;
    long lastTarget = -1;
    Set<String> live = new HashSet<>();
    // A stream runs a plan per batch: its batch lines say enough.
    boolean stream = events.stream().anyMatch(e -> e.event().equals("batchSubmitted"));
    for (EventLine e : events) {
      if (stream && (e.event().startsWith("plan") || e.event().startsWith("stage"))) {
        continue;
      }
      String line = switch (e.event()) {
        case "jobStart" -> "job " + e.get("job") + " started (" + e.get("app") + ")";
        case "planStart" -> "plan " + e.get("plan") + ": " + e.get("stages") + " stages, "
            + e.get("tasks") + " tasks";
        case "planEnd" -> "plan " + e.get("plan") + (e.get("succeeded").equals("true")
            ? " succeeded" : " failed");
        case "stageSubmitted" -> "stage " + e.get("stage") + " (" + e.get("name") + ") submitted: "
            + e.get("tasks") + " tasks";
        case "stageCompleted" -> "stage " + e.get("stage") + " (" + e.get("name") + ") completed";
        case "executorLaunched" -> "executor " + e.get("executor") + " launched on "
            + e.get("host") + " in " + e.get("container");
        case "executorRegistered" -> "executor " + e.get("executor") + " registered ("
            + e.get("startupMs") + " ms after its JVM started)";
        case "executorAdded" -> {
          if (live.add(e.get("executor"))) {
            added++;
            executors++;
            peak = Math.max(peak, executors);
          }
          yield null;
        }
        case "executorIdleRemoval" -> "executor " + e.get("executor") + " removed: "
            + (e.get("reason") == null ? "idle" : e.get("reason"));
        case "executorRemoved" -> {
          if (live.remove(e.get("executor"))) {
            executors--;
          }
          yield "executor " + e.get("executor") + " gone: " + e.get("reason") + " (" + executors
              + " running)";
        }
        case "containerCompleted" -> {
          if (!"true".equals(e.get("failure"))) {
            yield null;
          }
          failed++;
          yield "container " + e.get("container") + " of executor " + e.get("executor")
              + " failed (exit " + e.get("exitStatus") + "): " + e.get("diagnostics");
        }
        case "nodeExcluded", "nodeExclusionLifted", "nodeExclusionEnded" ->
            e.event() + " " + e.get("node");
        case "mapOutputLost" -> {
          lostOutputs++;
          yield "map output " + e.get("map") + " of stage " + e.get("stage") + " on "
              + e.get("host") + " lost (" + e.get("cause") + "), read by " + e.get("reader");
        }
        case "cachedBlocksLost" -> "cached blocks of executor " + e.get("executor") + " lost: "
            + e.get("blocks");
        case "timeline" -> {
          long target = e.getLong("target");
          String change = target == lastTarget || lastTarget < 0 && target <= 0 ? null
              : "target " + Math.max(lastTarget, 0) + " -> " + target + " executors ("
                  + e.get("pendingTasks") + " tasks pending, " + e.get("runningTasks")
                  + " running)";
          lastTarget = target;
          yield change;
        }
        case "streamingAllocation" -> {
          lastTarget = e.getLong("target");
          yield "target " + e.get("from") + " -> " + e.get("target") + " executors"
              + (e.getLong("remove") > 0 ? ", removing " + e.get("remove") : "") + ": "
              + e.get("reason");
        }
        case "batchCompleted" -> String.format("batch %s: %s records in %s ms, scheduling delay"
            + " %s ms, executors %s (target %s)%s", e.get("batch"), e.get("records"),
            e.get("processingMs"), e.get("schedulingDelayMs"), e.get("executors"),
            e.get("target"), "true".equals(e.get("delayed")) ? ", DELAYED" : "");
        case "jobEnd" -> "job " + (e.get("state") != null ? e.get("state")
            : "true".equals(e.get("succeeded")) ? "succeeded" : "failed") + ": "
            + e.get("diagnostics"); // logs written before the state field have none
        default -> null;
      };
      if (line != null) {
        text.append(String.format("%9.1fs  %s%n", (e.timeMillis() - t0) / 1000.0, line));
      }
    }
    text.append(String.format("executors: %d added, peak %d running, %d failed; map outputs"
        + " lost: %d%n", added, peak, failed, lostOutputs));
    return text.toString();
  }
}
