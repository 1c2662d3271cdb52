package dev.tide.rpc;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes authenticated RPC frames and hands them to a listener. A frame that does not decode
 * closes the connection with a log line naming the peer; nothing else is affected.
 */
final class RpcInboundHandler extends SimpleChannelInboundHandler<ByteBuf> {
  private static final Logger LOG = LoggerFactory.getLogger(RpcInboundHandler.class);
  private final RpcListener listener;

  RpcInboundHandler(RpcListener listener) {
    this.listener = listener;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
    RpcMessage message;
    try {
      message = RpcMessages.decode(frame);
    } catch (MalformedFrameException e) {
      LOG.warn("Closing RPC connection from {}: bad frame: {}", ctx.channel().remoteAddress(),
          e.getMessage());
      ctx.close();
      return;
    }
    listener.onMessage(ctx.channel(), message);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    listener.onClose(ctx.channel());
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.warn("RPC connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
