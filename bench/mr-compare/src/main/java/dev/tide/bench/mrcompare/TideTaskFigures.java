package dev.tide.bench.mrcompare;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where one Tide application spent its time and memory, from its event log: per stage, the
 * stage's span, its tasks' summed run time and the {@code taskEnd} figures an executor reports
 * ({@code peakHeapBytes}, {@code spills}, {@code spilledBytes}, {@code fetchedToDiskBytes},
 * {@code fetchedInMemoryBytes}, {@code fetchMillis}); and how long the driver took from
 * {@code jobStart} to its first stage (planning: for the sort, sampling the split points).
 *
 * @param planningMillis {@code jobStart} to the first {@code stageSubmitted}
 * @param executorsAdded {@code executorAdded} events
 * @param stages per stage, in the order they were submitted
 */
record TideTaskFigures(long planningMillis, int executorsAdded, List<Stage> stages) {

  /**
   * Figures of one stage; byte counts and peak heap are over its successful attempts.
   *
   * @param name the stage's name in the plan
   * @param spanMillis {@code stageSubmitted} to {@code stageCompleted}
   * @param tasks successful task attempts
   * @param failedAttempts attempts that ended otherwise (failed, fetch-failed, executor lost)
   * @param taskMillis summed {@code taskStart} to {@code taskEnd} of the successful attempts
   * @param peakHeapBytes the largest {@code peakHeapBytes} any attempt reported
   */
  record Stage(String name, long spanMillis, int tasks, int failedAttempts, long taskMillis,
      long peakHeapBytes, long spills, long spilledBytes, long fetchedToDiskBytes,
      long fetchedInMemoryBytes, long fetchMillis) {}

  static TideTaskFigures of(List<EventLine> events) {
    Long jobStart = null;
    Long firstStage = null;
    int executors = 0;
    Map<String, String> names = new LinkedHashMap<>();
    Map<String, Long> submitted = new HashMap<>();
    Map<String, Long> completed = new HashMap<>();
    Map<String, Long> taskStarts = new HashMap<>();
    Map<String, long[]> sums = new HashMap<>();
    for (EventLine e : events) {
      Optional<EventName> eventName = e.eventName();
      if (eventName.isEmpty()) {
        continue; // an event this version does not know: readers ignore it
      }
      switch (eventName.get()) {
        case JOB_START -> jobStart = e.timeMillis();
        case EXECUTOR_ADDED -> executors++;
        case STAGE_SUBMITTED -> {
          names.put(e.get("stage"), e.get("name"));
          submitted.put(e.get("stage"), e.timeMillis());
          firstStage = firstStage == null ? e.timeMillis() : firstStage;
        }
        case STAGE_COMPLETED -> completed.put(e.get("stage"), e.timeMillis());
        case TASK_START -> taskStarts.put(e.get("task") + "/" + e.get("attempt"), e.timeMillis());
        case TASK_END -> {
          long[] s = sums.computeIfAbsent(e.get("stage"), k -> new long[10]);
          if (!"SUCCEEDED".equals(e.get("result"))) {
            s[1]++;
            continue;
          }
          s[0]++;
          Long start = taskStarts.get(e.get("task") + "/" + e.get("attempt"));
          s[2] += start == null ? 0 : e.timeMillis() - start;
          s[3] = Math.max(s[3], value(e, "peakHeapBytes"));
          s[4] += value(e, "spills");
          s[5] += value(e, "spilledBytes");
          s[6] += value(e, "fetchedToDiskBytes");
          s[7] += value(e, "fetchedInMemoryBytes");
          s[8] += value(e, "fetchMillis");
        }
        default -> { }
      }
    }
    List<Stage> stages = new ArrayList<>();
    for (Map.Entry<String, String> stage : names.entrySet()) {
      long[] s = sums.getOrDefault(stage.getKey(), new long[10]);
      Long end = completed.get(stage.getKey());
      long span = end == null ? -1 : end - submitted.get(stage.getKey());
      stages.add(new Stage(stage.getValue(), span, (int) s[0], (int) s[1], s[2], s[3], s[4],
          s[5], s[6], s[7], s[8]));
    }
    long planning = jobStart == null || firstStage == null ? -1 : firstStage - jobStart;
    return new TideTaskFigures(planning, executors, List.copyOf(stages));
  }

  private static long value(EventLine e, String key) {
    String v = e.get(key);
    return v == null ? 0 : Long.parseLong(v);
  }

  /** The largest peak heap any task reported. */
  long peakHeapBytes() {
    return stages.stream().mapToLong(Stage::peakHeapBytes).max().orElse(0);
  }

  /** One line per stage, for the terminal and the README. */
  List<String> describe() {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "planning (jobStart to first stage) %.1f s, %d"
        + " executors added", planningMillis / 1000.0, executorsAdded));
    for (Stage s : stages) {
      lines.add(String.format(Locale.ROOT, "stage %s: %.1f s, %d tasks (%d other attempts),"
          + " task time %.1f s, peak heap %d MiB, %d spills, spilled %d MiB, fetched to disk"
          + " %d MiB, in memory %d MiB, fetch time %.1f s", s.name(), s.spanMillis() / 1000.0,
          s.tasks(), s.failedAttempts(), s.taskMillis() / 1000.0, s.peakHeapBytes() >> 20,
          s.spills(), s.spilledBytes() >> 20, s.fetchedToDiskBytes() >> 20,
          s.fetchedInMemoryBytes() >> 20, s.fetchMillis() / 1000.0));
    }
    return lines;
  }
}
