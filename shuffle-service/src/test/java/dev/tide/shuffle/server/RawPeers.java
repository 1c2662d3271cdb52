package dev.tide.shuffle.server;

import dev.tide.network.SecureChannels;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Hand-made peers for tests: an authenticated raw client and a server that never answers. */
final class RawPeers {
  private RawPeers() {}

  /** A server that authenticates clients and then ignores every request. */
  static final class SilentServer implements AutoCloseable {
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel channel;

    SilentServer(String appId, byte[] secret) {
      channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              SecureChannels.initServer(ch, Map.of(appId, secret)::get, 1 << 20,
                  new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                      ((ByteBuf) msg).release();
                    }
                  });
            }
          })
          .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    int port() {
      return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
      channel.close().syncUninterruptibly();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  static SilentServer silentAfterHandshake(String appId, byte[] secret) {
    return new SilentServer(appId, secret);
  }

  /** An authenticated connection that writes raw bytes and collects decoded replies. */
  static final class RawClient implements AutoCloseable {
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    final BlockingQueue<ShuffleMessage> replies = new LinkedBlockingQueue<>();
    final Channel channel;
    final Future<Void> handshake;

    RawClient(int port, String appId, byte[] secret) throws InterruptedException {
      this(port, appId, secret, 1 << 20, 0);
    }

    /**
     * @param maxFrameBytes largest reply frame accepted
     * @param receiveBufferBytes SO_RCVBUF, small to make a stalled reader stall the server's
     *     writes quickly; 0 for the system default
     */
    RawClient(int port, String appId, byte[] secret, int maxFrameBytes, int receiveBufferBytes)
        throws InterruptedException {
      Future<Void>[] hs = new Future[1];
      Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class);
      if (receiveBufferBytes > 0) {
        bootstrap.option(io.netty.channel.ChannelOption.SO_RCVBUF, receiveBufferBytes);
      }
      channel = bootstrap
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              hs[0] = SecureChannels.initClient(ch, appId, secret, maxFrameBytes,
                  new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                      ByteBuf body = (ByteBuf) msg;
                      try {
                        replies.add(ShuffleMessages.decode(body));
                      } finally {
                        body.release();
                      }
                    }
                  });
            }
          })
          .connect("127.0.0.1", port).syncUninterruptibly().channel();
      handshake = hs[0];
      handshake.await(5, TimeUnit.SECONDS);
      if (!handshake.isSuccess()) {
        throw new AssertionError("handshake failed", handshake.cause());
      }
    }

    /** Stops (false) or resumes (true) reading from the socket. */
    void reading(boolean on) {
      channel.config().setAutoRead(on);
    }

    void write(ByteBuf raw) {
      channel.writeAndFlush(raw).syncUninterruptibly();
    }

    ShuffleMessage nextReply() throws InterruptedException {
      // Generous: a loaded 2-core machine can take seconds to move a multi-MB reply.
      ShuffleMessage m = replies.poll(20, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("no reply within 20 s");
      }
      return m;
    }

    /** Closes the connection; safe to call twice. */
    @Override
    public void close() {
      if (group.isShuttingDown()) {
        return;
      }
      channel.close().syncUninterruptibly();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
