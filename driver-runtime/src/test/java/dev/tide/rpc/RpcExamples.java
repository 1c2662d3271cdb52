package dev.tide.rpc;

import dev.tide.driver.job.JobPlan;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One example of every RPC message, with every optional part present (a LAUNCH_TASK with shuffle
 * inputs and a cached dataset block, a TASK_STATUS of a fetch failure with metrics): what the
 * round-trip, document and fuzz tests start from. RPC-PROTOCOL.md shows their bytes.
 */
final class RpcExamples {
  private RpcExamples() {}

  static final TaskDescription REDUCE_TASK = new TaskDescription(7, TaskDescription.Kind.REDUCE,
      2, 2, 3, "a.Reducer", new byte[] {1, 2}, List.of("h1", "h2"), List.of(
          new TaskDescription.ShuffleInput(0, List.of(new MapLocation(0, "h1", 7447),
              new MapLocation(5, "h2", 7448))),
          new TaskDescription.ShuffleInput(1, List.of(new MapLocation(1, "h3", 7449)))),
      4, JobPlan.Partitioning.range(List.of(new byte[] {5})), "hdfs:///o",
      new TaskDescription.DatasetBlock("points", "a.Parse", true), new byte[] {4, 2});

  static final TaskOutcome FETCH_FAILED = new TaskOutcome(7, TaskOutcome.State.FETCH_FAILED,
      "gone", "h2", 7448, false, 1, List.of(5, 6), Map.of("bytesFetched", 10L, "fetchStart", 3L),
      "disk");

  /** By RPC-PROTOCOL.md name, in wire-id order; one per permitted record of RpcMessage. */
  static Map<String, RpcMessage> all() {
    Map<String, RpcMessage> all = new LinkedHashMap<>();
    all.put("REGISTER_EXECUTOR", new RpcMessage.RegisterExecutor("12", "node-1", 4, 412));
    all.put("REGISTERED", new RpcMessage.Registered(new byte[] {9, 8, 7}));
    all.put("REGISTER_REJECTED", new RpcMessage.RegisterRejected("no"));
    all.put("LAUNCH_TASK", new RpcMessage.LaunchTask(REDUCE_TASK));
    all.put("TASK_STATUS", new RpcMessage.TaskStatus(FETCH_FAILED));
    all.put("SHUTDOWN", new RpcMessage.Shutdown("bye"));
    all.put("HEARTBEAT", new RpcMessage.Heartbeat("12", List.of(7L, 1L << 40)));
    all.put("UPDATE_TOKENS", new RpcMessage.UpdateTokens(new byte[] {'H', 'D', 'T', 'S', 0,
        0, 0}));
    all.put("MAP_OUTPUTS_MOVED", new RpcMessage.MapOutputsMoved(3, List.of(
        new MapLocation(5, "h2", 7448))));
    return all;
  }

  /** The frame body (type byte and payload, no length prefix) of {@code message}. */
  static byte[] body(RpcMessage message) {
    ByteBuf frame = RpcChannels.toFrame(ByteBufAllocator.DEFAULT, message);
    try {
      frame.skipBytes(4);
      byte[] bytes = new byte[frame.readableBytes()];
      frame.readBytes(bytes);
      return bytes;
    } finally {
      frame.release();
    }
  }
}
