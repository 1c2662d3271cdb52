package dev.tide.rpc;

import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;

/**
 * The messages between driver and executors. Each is one frame with its own type byte (64-127,
 * see {@code dev.tide.shuffle.transport.Frames}); {@link RpcCodec} has the byte layouts.
 */
public sealed interface RpcMessage {
  /** Executor to driver, first message after the handshake. */
  record RegisterExecutor(String executorId, String host, int cores, long startupMillis)
      implements RpcMessage {}

  /** Driver to executor: accepted; carries the job's settings (Hadoop Writable form). */
  record Registered(byte[] jobConf) implements RpcMessage {
    public Registered {
      jobConf = jobConf.clone();
    }

    @Override
    public byte[] jobConf() {
      return jobConf.clone();
    }
  }

  /** Driver to executor: refused (unknown id, duplicate, job over); the executor exits. */
  record RegisterRejected(String reason) implements RpcMessage {}

  /** Driver to executor: run this task attempt. */
  record LaunchTask(TaskDescription task) implements RpcMessage {}

  /** Executor to driver: a task attempt ended. */
  record TaskStatus(TaskOutcome outcome) implements RpcMessage {}

  /** Driver to executor: exit now. */
  record Shutdown(String reason) implements RpcMessage {}

  /**
   * Executor to driver, every {@code tide.executor.heartbeatInterval} once registered: it is
   * alive, running these task attempts (ids as in {@link TaskDescription#taskId()}).
   */
  record Heartbeat(String executorId, java.util.List<Long> runningTaskIds)
      implements RpcMessage {
    public Heartbeat {
      runningTaskIds = java.util.List.copyOf(runningTaskIds);
    }
  }
}
