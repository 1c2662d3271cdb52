package dev.tide.rpc;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The messages between driver and executors: immutable records, each with a fixed wire id
 * ({@link RpcMessageIds}), each writing its own payload and reading it back with a
 * {@link RpcReader}. A message travels as one frame {@code len:i32 id:u8 payload}; the byte
 * layouts are in {@code driver-runtime/RPC-PROTOCOL.md}, the one decoding entry point is
 * {@link RpcMessages#decode}.
 */
public sealed interface RpcMessage {
  /** The frame's type byte. */
  byte wireId();

  /** Writes the payload (the fields after the type byte). */
  void encodePayload(ByteBuf out);

  /** Executor to driver, first message after the handshake. */
  record RegisterExecutor(String executorId, String host, int cores, long startupMillis)
      implements RpcMessage {
    @Override
    public byte wireId() {
      return RpcMessageIds.REGISTER_EXECUTOR;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.string(out, executorId);
      RpcWriter.string(out, host);
      out.writeInt(cores);
      out.writeLong(startupMillis);
    }

    static RegisterExecutor decode(RpcReader in) {
      return new RegisterExecutor(in.string("executorId"), in.string("host"), in.i32("cores"),
          in.i64("startupMillis"));
    }
  }

  /** Driver to executor: accepted; carries the job's settings (Hadoop Writable form). */
  record Registered(byte[] jobConf) implements RpcMessage {
    public Registered {
      jobConf = jobConf.clone();
    }

    @Override
    public byte[] jobConf() {
      return jobConf.clone();
    }

    @Override
    public byte wireId() {
      return RpcMessageIds.REGISTERED;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.bytes(out, jobConf);
    }

    static Registered decode(RpcReader in) {
      return new Registered(in.bytes("jobConf"));
    }
  }

  /** Driver to executor: refused (unknown id, duplicate, job over); the executor exits. */
  record RegisterRejected(String reason) implements RpcMessage {
    @Override
    public byte wireId() {
      return RpcMessageIds.REGISTER_REJECTED;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.string(out, reason);
    }

    static RegisterRejected decode(RpcReader in) {
      return new RegisterRejected(in.string("reason"));
    }
  }

  /** Driver to executor: run this task attempt. */
  record LaunchTask(TaskDescription task) implements RpcMessage {
    @Override
    public byte wireId() {
      return RpcMessageIds.LAUNCH_TASK;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      task.encode(out);
    }

    static LaunchTask decode(RpcReader in) {
      return new LaunchTask(TaskDescription.decode(in));
    }
  }

  /** Executor to driver: a task attempt ended. */
  record TaskStatus(TaskOutcome outcome) implements RpcMessage {
    @Override
    public byte wireId() {
      return RpcMessageIds.TASK_STATUS;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      outcome.encode(out);
    }

    static TaskStatus decode(RpcReader in) {
      return new TaskStatus(TaskOutcome.decode(in));
    }
  }

  /** Driver to executor: exit now. */
  record Shutdown(String reason) implements RpcMessage {
    @Override
    public byte wireId() {
      return RpcMessageIds.SHUTDOWN;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.string(out, reason);
    }

    static Shutdown decode(RpcReader in) {
      return new Shutdown(in.string("reason"));
    }
  }

  /**
   * Executor to driver, every {@code tide.executor.heartbeatInterval} once registered: it is
   * alive, running these task attempts (ids as in {@link TaskDescription#taskId()}).
   */
  record Heartbeat(String executorId, List<Long> runningTaskIds) implements RpcMessage {
    public Heartbeat {
      runningTaskIds = List.copyOf(runningTaskIds);
    }

    @Override
    public byte wireId() {
      return RpcMessageIds.HEARTBEAT;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.string(out, executorId);
      out.writeInt(runningTaskIds.size());
      runningTaskIds.forEach(out::writeLong);
    }

    static Heartbeat decode(RpcReader in) {
      String executorId = in.string("executorId");
      int count = in.count("runningTaskIds", Long.BYTES);
      Long[] ids = new Long[count];
      for (int i = 0; i < count; i++) {
        ids[i] = in.i64("runningTaskIds[" + i + "]");
      }
      return new Heartbeat(executorId, List.of(ids));
    }
  }

  /**
   * Driver to executor, when the ApplicationMaster has obtained fresh delegation tokens (and to
   * an executor that registers after that): the executor adds them to its Hadoop user, replacing
   * the tokens of the same services. {@code credentials} is Hadoop's token storage
   * ({@code Credentials#writeTokenStorageToStream}), as in a container's token file.
   */
  record UpdateTokens(byte[] credentials) implements RpcMessage {
    public UpdateTokens {
      credentials = credentials.clone();
    }

    @Override
    public byte[] credentials() {
      return credentials.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof UpdateTokens other
          && java.util.Arrays.equals(credentials, other.credentials);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(credentials);
    }

    @Override
    public String toString() {
      return "UpdateTokens[" + credentials.length + " bytes]";
    }

    @Override
    public byte wireId() {
      return RpcMessageIds.UPDATE_TOKENS;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      RpcWriter.bytes(out, credentials);
    }

    static UpdateTokens decode(RpcReader in) {
      return new UpdateTokens(in.bytes("credentials"));
    }
  }

  /**
   * Driver to every executor, when map outputs of a shuffle were copied to another node's
   * service (a node leaving gracefully) and the driver's map-output table moved them: a reader
   * that has not fetched yet fetches them from their new place. {@code moved} holds the new
   * locations.
   */
  record MapOutputsMoved(int shuffleId, List<MapLocation> moved) implements RpcMessage {
    public MapOutputsMoved {
      moved = List.copyOf(moved);
    }

    @Override
    public byte wireId() {
      return RpcMessageIds.MAP_OUTPUTS_MOVED;
    }

    @Override
    public void encodePayload(ByteBuf out) {
      out.writeInt(shuffleId);
      out.writeInt(moved.size());
      for (MapLocation l : moved) {
        out.writeInt(l.mapId());
        RpcWriter.string(out, l.host());
        out.writeInt(l.shufflePort());
      }
    }

    static MapOutputsMoved decode(RpcReader in) {
      int shuffleId = in.i32("shuffleId");
      int count = in.count("moved", 12);
      List<MapLocation> moved = new java.util.ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        String at = "moved[" + i + "]";
        moved.add(new MapLocation(in.i32(at + ".mapId"), in.string(at + ".host"),
            in.i32(at + ".shufflePort")));
      }
      return new MapOutputsMoved(shuffleId, moved);
    }
  }
}
