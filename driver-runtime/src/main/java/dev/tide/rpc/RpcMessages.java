package dev.tide.rpc;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.function.Function;

/**
 * The one decoding entry point of the driver RPC: a frame body (type byte, payload) to its
 * {@link RpcMessage}. Stateless and thread-safe; does not release the body.
 */
public final class RpcMessages {
  private RpcMessages() {}

  /**
   * @throws MalformedFrameException for an empty body, an unknown id (named as on the wire,
   *     0-255), or a payload that does not parse exactly: the message names the message, its id
   *     and the field, e.g. {@code LAUNCH_TASK (67) taskClass: length 9 is negative, above ...}
   */
  public static RpcMessage decode(ByteBuf body) {
    if (!body.isReadable()) {
      throw new MalformedFrameException("empty RPC frame");
    }
    int id = body.readUnsignedByte();
    Function<RpcReader, RpcMessage> decoder = switch (id) {
      case RpcMessageIds.REGISTER_EXECUTOR -> RpcMessage.RegisterExecutor::decode;
      case RpcMessageIds.REGISTERED -> RpcMessage.Registered::decode;
      case RpcMessageIds.REGISTER_REJECTED -> RpcMessage.RegisterRejected::decode;
      case RpcMessageIds.LAUNCH_TASK -> RpcMessage.LaunchTask::decode;
      case RpcMessageIds.TASK_STATUS -> RpcMessage.TaskStatus::decode;
      case RpcMessageIds.SHUTDOWN -> RpcMessage.Shutdown::decode;
      case RpcMessageIds.HEARTBEAT -> RpcMessage.Heartbeat::decode;
      case RpcMessageIds.UPDATE_TOKENS -> RpcMessage.UpdateTokens::decode;
      case RpcMessageIds.MAP_OUTPUTS_MOVED -> RpcMessage.MapOutputsMoved::decode;
      default -> throw new MalformedFrameException("unknown RPC message type " + id);
    };
    RpcReader reader = new RpcReader(body, nameOf(id) + " (" + id + ")");
    RpcMessage message = decoder.apply(reader);
    reader.end();
    return message;
  }

  /** The RPC-PROTOCOL.md name of a wire id ({@code LAUNCH_TASK}), or {@code id N}. */
  public static String nameOf(int id) {
    return switch (id) {
      case RpcMessageIds.REGISTER_EXECUTOR -> "REGISTER_EXECUTOR";
      case RpcMessageIds.REGISTERED -> "REGISTERED";
      case RpcMessageIds.REGISTER_REJECTED -> "REGISTER_REJECTED";
      case RpcMessageIds.LAUNCH_TASK -> "LAUNCH_TASK";
      case RpcMessageIds.TASK_STATUS -> "TASK_STATUS";
      case RpcMessageIds.SHUTDOWN -> "SHUTDOWN";
      case RpcMessageIds.HEARTBEAT -> "HEARTBEAT";
      case RpcMessageIds.UPDATE_TOKENS -> "UPDATE_TOKENS";
      case RpcMessageIds.MAP_OUTPUTS_MOVED -> "MAP_OUTPUTS_MOVED";
      default -> "id " + id;
    };
  }
}
