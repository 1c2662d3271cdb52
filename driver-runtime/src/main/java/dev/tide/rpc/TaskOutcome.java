package dev.tide.rpc;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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

  /** The end state of an attempt; the wire code is fixed. */
  public enum State {
    SUCCEEDED(0), FAILED(1), FETCH_FAILED(2);

    private final int wire;

    State(int wire) {
      this.wire = wire;
    }

    public int wire() {
      return wire;
    }
  }

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

  /**
   * Writes the TASK_STATUS payload (RPC-PROTOCOL.md). Metrics go in key order, so one outcome
   * always has the same bytes.
   */
  void encode(ByteBuf out) {
    out.writeLong(taskId);
    out.writeByte(state.wire());
    RpcWriter.string(out, message);
    RpcWriter.string(out, fetchHost);
    out.writeInt(fetchPort);
    RpcWriter.bool(out, wholeServiceLost);
    out.writeInt(lostShuffleId);
    out.writeInt(lostMapIds.size());
    lostMapIds.forEach(out::writeInt);
    out.writeInt(metrics.size());
    new TreeMap<>(metrics).forEach((k, v) -> {
      RpcWriter.string(out, k);
      out.writeLong(v);
    });
    RpcWriter.string(out, lossCause);
  }

  /** Reads what {@link #encode} wrote; metric keys must come in strictly increasing order. */
  static TaskOutcome decode(RpcReader in) {
    long taskId = in.i64("taskId");
    State state = in.code("state", State.values(), State::wire);
    String message = in.string("message");
    String fetchHost = in.string("fetchHost");
    int fetchPort = in.i32("fetchPort");
    boolean wholeService = in.bool("wholeServiceLost");
    int lostShuffleId = in.i32("lostShuffleId");
    int lostCount = in.count("lostMapIds", 4);
    List<Integer> lost = new ArrayList<>(lostCount);
    for (int i = 0; i < lostCount; i++) {
      lost.add(in.i32("lostMapIds[" + i + "]"));
    }
    int metricCount = in.count("metrics", 12);
    Map<String, Long> metrics = new HashMap<>();
    String previous = null;
    for (int i = 0; i < metricCount; i++) {
      String key = in.string("metrics[" + i + "].key");
      if (previous != null && key.compareTo(previous) <= 0) {
        throw in.malformed("metrics[" + i + "].key", "'" + key + "' does not follow '"
            + previous + "' in increasing order");
      }
      previous = key;
      metrics.put(key, in.i64("metrics[" + i + "].value"));
    }
    String lossCause = in.string("lossCause");
    return new TaskOutcome(taskId, state, message, fetchHost, fetchPort, wholeService,
        lostShuffleId, lost, metrics, lossCause);
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
