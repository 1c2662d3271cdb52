package dev.tide.rpc;

import io.netty.channel.Channel;

/** Receives decoded RPC messages and connection ends. Called on Netty's event loop. */
public interface RpcListener {
  void onMessage(Channel channel, RpcMessage message);

  void onClose(Channel channel);
}
