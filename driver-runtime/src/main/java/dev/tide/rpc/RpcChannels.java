package dev.tide.rpc;

import dev.tide.network.Frames;
import dev.tide.network.SecureChannels;
import dev.tide.network.ThrottledLog;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The driver RPC's two ends, on the shared Tide transport: length-prefixed frames and the
 * application-secret handshake ({@link SecureChannels}), then one {@link RpcMessage} per frame.
 * The only class of the driver RPC that knows the transport (with {@link RpcInboundHandler}).
 */
public final class RpcChannels implements AutoCloseable {
  static final int MAX_FRAME_BYTES = 64 * 1024 * 1024;
  /** Refused handshakes and failed records of the driver's RPC server. */
  private static final ThrottledLog REFUSALS = new ThrottledLog(
      LoggerFactory.getLogger(RpcChannels.class), SecureChannels.REFUSAL_LOG_INTERVAL,
      System::nanoTime);
  private final EventLoopGroup group;
  private Channel serverChannel;

  public RpcChannels(String threadName) {
    this.group = new NioEventLoopGroup(2, new DefaultThreadFactory(threadName, true));
  }

  /** Listens for executors of {@code appId}; returns the bound address. */
  public InetSocketAddress listen(int port, String appId, byte[] secret, RpcListener listener)
      throws IOException {
    return listen(port, appId, secret, listener, false);
  }

  /**
   * Listens for executors of {@code appId}; returns the bound address. With {@code encrypt}
   * every connection is encrypted after the handshake and executors that do not encrypt are
   * refused.
   */
  public InetSocketAddress listen(int port, String appId, byte[] secret, RpcListener listener,
      boolean encrypt) throws IOException {
    byte[] key = secret.clone();
    ServerBootstrap bootstrap = new ServerBootstrap().group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            SecureChannels.initServer(ch, id -> appId.equals(id) ? key : null, MAX_FRAME_BYTES,
                SecureChannels.DEFAULT_HANDSHAKE_TIMEOUT, REFUSALS, encrypt,
                new RpcInboundHandler(listener));
          }
        });
    ChannelFuture bound = bootstrap.bind(port).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      throw new IOException("driver RPC could not listen on port " + port, bound.cause());
    }
    serverChannel = bound.channel();
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** Connects and authenticates; returns an open channel or throws naming the driver. */
  public Channel connect(String host, int port, String appId, byte[] secret,
      RpcListener listener, long timeoutMillis) throws IOException {
    return connect(host, port, appId, secret, listener, timeoutMillis, false);
  }

  /**
   * Connects and authenticates, encrypting after the handshake when {@code encrypt}; returns an
   * open channel or throws naming the driver.
   */
  public Channel connect(String host, int port, String appId, byte[] secret,
      RpcListener listener, long timeoutMillis, boolean encrypt) throws IOException {
    Future<Void>[] handshake = new Future[1];
    Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeoutMillis)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            handshake[0] = SecureChannels.initClient(ch, appId, Arrays.copyOf(secret,
                secret.length), MAX_FRAME_BYTES, SecureChannels.DEFAULT_HANDSHAKE_TIMEOUT,
                encrypt, new RpcInboundHandler(listener));
          }
        });
    ChannelFuture connected = bootstrap.connect(host, port).awaitUninterruptibly();
    if (!connected.isSuccess()) {
      throw new IOException("cannot connect to the driver at " + host + ":" + port + ": "
          + connected.cause(), connected.cause());
    }
    if (!handshake[0].awaitUninterruptibly(timeoutMillis, TimeUnit.MILLISECONDS)
        || !handshake[0].isSuccess()) {
      connected.channel().close();
      Throwable cause = handshake[0].cause();
      throw new IOException("authentication with the driver at " + host + ":" + port
          + " failed: " + (cause == null ? "timed out" : cause.getMessage()), cause);
    }
    return connected.channel();
  }

  /** Encodes and writes {@code message}; the future completes when it was written. */
  public static ChannelFuture send(Channel channel, RpcMessage message) {
    return channel.writeAndFlush(toFrame(channel.alloc(), message));
  }

  /** A whole frame ({@code len:i32 id:u8 payload}) holding {@code message}; the caller owns it. */
  public static ByteBuf toFrame(ByteBufAllocator alloc, RpcMessage message) {
    ByteBuf frame = Frames.start(alloc, message.wireId());
    try {
      message.encodePayload(frame);
      return Frames.finish(frame);
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
  }

  @Override
  public void close() {
    if (serverChannel != null) {
      serverChannel.close().awaitUninterruptibly();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
