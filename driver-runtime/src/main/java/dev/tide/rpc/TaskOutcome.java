package dev.tide.rpc;

import java.util.List;
import java.util.Map;

/**
 * How a task attempt ended, as its executor reports it.
 *
 * @param lostShuffleId for a fetch failure: the shuffle (the id of the stage that wrote it)
 * @param lostMapIds for a fetch failure: the map outputs of that shuffle that could not be read
 * @param metrics small counters for the event log (bytes fetched, fetch start time ...)
 * @param lossCause for a fetch failure: why the outputs are lost, one of {@link #LOSS_CAUSES}
 *     ({@code disk}, {@code network}, {@code unknown} for a corrupt block as diagnosed by the
 *     serving service; {@code missing}, {@code unreachable}, {@code service} otherwise); empty
 *     for other outcomes
 */
public record TaskOutcome(long taskId, State state, String message, String fetchHost,
    int fetchPort, boolean wholeServiceLost, int lostShuffleId, List<Integer> lostMapIds,
    Map<String, Long> metrics, String lossCause) {

  /** The {@link #lossCause()} of an output the serving node found damaged on its disk. */
  public static final String DAMAGED_ON_DISK = "disk";

  /** The values of {@link #lossCause()} for a fetch failure. */
  public static final List<String> LOSS_CAUSES = List.of(DAMAGED_ON_DISK, "network", "unknown",
      "missing", "unreachable", "service");

  /** The end state of an attempt. */
  public enum State { SUCCEEDED, FAILED, FETCH_FAILED }

  /**
   * Metric of a failed outcome whose executor ran out of heap: it exits after reporting, so the
   * scheduler gives it no more tasks.
   */
  public static final String EXECUTOR_OUT_OF_MEMORY = "executorOutOfMemory";

  /**
   * Metric of a failed outcome whose task's user code called {@code System.exit}: its executor
   * is ending, so the scheduler gives it no more tasks.
   */
  public static final String EXECUTOR_EXITING = "executorExiting";

  /**
   * Metric of a succeeded map task over a cached dataset: 1 when its executor now holds the
   * block in memory, 0 when it did not fit ({@code tide.cache.memory}).
   */
  public static final String CACHED_BLOCK = "cachedBlock";

  public TaskOutcome {
    lostMapIds = List.copyOf(lostMapIds);
    metrics = Map.copyOf(metrics);
    lossCause = lossCause == null ? "" : lossCause;
  }

  /** An outcome without a loss cause. */
  public TaskOutcome(long taskId, State state, String message, String fetchHost, int fetchPort,
      boolean wholeServiceLost, int lostShuffleId, List<Integer> lostMapIds,
      Map<String, Long> metrics) {
    this(taskId, state, message, fetchHost, fetchPort, wholeServiceLost, lostShuffleId,
        lostMapIds, metrics, "");
  }

  public static TaskOutcome succeeded(long taskId, Map<String, Long> metrics) {
    return new TaskOutcome(taskId, State.SUCCEEDED, "", "", 0, false, 0, List.of(),
        metrics);
  }

  public static TaskOutcome failed(long taskId, String message) {
    return new TaskOutcome(taskId, State.FAILED, message, "", 0, false, 0, List.of(),
        Map.of());
  }
}
