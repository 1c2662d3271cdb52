package dev.tide.driver.job;

/**
 * The task attempt a mapper or reducer runs in, from {@link JobContext#task()} (as MapReduce's
 * {@code TaskAttemptContext} and Spark's {@code TaskContext}): for naming side files uniquely,
 * seeding per-task randomness, or saying in a message which attempt saw what. The same numbers
 * appear in the event log's {@code taskStart} / {@code taskEnd} and in task failures
 * ({@code map 3 (stage 0, attempt 1)}).
 *
 * @param stageId the stage's id in the application (the event log's {@code stage}; ids go on
 *     across the plans of one job)
 * @param kind whether the task reads a split (MAP) or a shuffled partition (REDUCE)
 * @param index the split (map) or partition (reduce) the task works on, from 0
 * @param attempt 0 for the first attempt of this task, 1 for its first retry, and so on
 * @param attemptId unique among all task attempts of the application (the event log's
 *     {@code task})
 */
public record TaskAttempt(int stageId, Kind kind, int index, int attempt, long attemptId) {
  /** What a task reads. */
  public enum Kind { MAP, REDUCE }

  /** e.g. {@code map 3 (stage 0, attempt 1)}, as task failures name it. */
  public String describe() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + index + " (stage " + stageId
        + ", attempt " + attempt + ")";
  }
}
