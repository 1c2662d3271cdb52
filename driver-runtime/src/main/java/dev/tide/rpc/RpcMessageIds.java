package dev.tide.rpc;

/**
 * Wire ids (the frame's type byte) of the driver RPC messages, in the range 64-127 that
 * {@code dev.tide.network.Frames} gives the driver RPC. Each is fixed: a new message
 * takes a new id, an id is never reused. See {@code driver-runtime/RPC-PROTOCOL.md}.
 */
public final class RpcMessageIds {
  public static final byte REGISTER_EXECUTOR = 64;
  public static final byte REGISTERED = 65;
  public static final byte REGISTER_REJECTED = 66;
  public static final byte LAUNCH_TASK = 67;
  public static final byte TASK_STATUS = 68;
  public static final byte SHUTDOWN = 69;
  public static final byte HEARTBEAT = 70;
  public static final byte UPDATE_TOKENS = 71;
  public static final byte MAP_OUTPUTS_MOVED = 72;

  private RpcMessageIds() {}
}
