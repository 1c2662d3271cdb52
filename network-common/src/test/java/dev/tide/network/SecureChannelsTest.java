package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.testing.ByteRelay;
import dev.tide.testing.Await;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The handshake on real loopback connections, with a driver-RPC-like protocol (types 64/65)
 * behind it, as driver-runtime uses it.
 */
class SecureChannelsTest {
  private static final String APP = "application_1700000000000_0001";
  private static final byte[] SECRET = "s3cret-of-app-1".getBytes(StandardCharsets.UTF_8);
  private static final byte PING = 64;
  private static final byte PONG = 65;

  private EventLoopGroup group;
  private Channel server;
  private final BlockingQueue<String> serverSaw = new LinkedBlockingQueue<>();

  /** Answers PING(payload) with PONG("appId:payload"), proving the channel's app id is set. */
  private final class EchoHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof HandshakeCompletedEvent e) {
        serverSaw.add("completed:" + e.appId());
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf body = (ByteBuf) msg;
      try {
        byte type = body.readByte();
        String payload = body.toString(StandardCharsets.UTF_8);
        serverSaw.add("frame:" + type + ":" + payload);
        ByteBuf reply = Frames.start(ctx.alloc(), PONG);
        reply.writeCharSequence(ctx.channel().attr(SecureChannels.APP_ID).get() + ":" + payload,
            StandardCharsets.UTF_8);
        ctx.writeAndFlush(Frames.finish(reply));
      } finally {
        body.release();
      }
    }
  }

  private static final class Collector extends ChannelInboundHandlerAdapter {
    final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf body = (ByteBuf) msg;
      try {
        received.add(body.readByte() + ":" + body.toString(StandardCharsets.UTF_8));
      } finally {
        body.release();
      }
    }
  }

  @BeforeEach
  void startServer() {
    group = new NioEventLoopGroup(2);
    server = startServer(false, Duration.ofSeconds(10));
  }

  /** A server with a handshake timeout that a relay under a loaded machine cannot miss. */
  private Channel startRelayedServer() {
    return startServer(false, Duration.ofSeconds(10));
  }

  private Channel startServer(boolean encryptionRequired, Duration handshakeTimeout) {
    Map<String, byte[]> secrets = Map.of(APP, SECRET);
    return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            SecureChannels.initServer(ch, secrets::get, 1024, handshakeTimeout,
                new ThrottledLog(org.slf4j.LoggerFactory.getLogger(SecureChannelsTest.class),
                    Duration.ofSeconds(10), System::nanoTime), encryptionRequired,
                new EchoHandler());
          }
        })
        .bind("127.0.0.1", 0).syncUninterruptibly().channel();
  }

  @AfterEach
  void stop() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  private record Client(Channel channel, Future<Void> handshake, Collector collector) {}

  private Client connect(String appId, byte[] secret) {
    return connect(appId, secret, false, port());
  }

  private Client connect(String appId, byte[] secret, boolean encrypt, int port) {
    Collector collector = new Collector();
    Future<Void>[] handshake = new Future[1];
    Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel c) {
            handshake[0] = SecureChannels.initClient(c, appId, secret, 1024,
                Duration.ofSeconds(5), encrypt, collector);
          }
        })
        .connect("127.0.0.1", port).syncUninterruptibly().channel();
    return new Client(ch, handshake[0], collector);
  }

  @Test
  void authenticatedChannelCarriesProtocolFramesBothWays() throws Exception {
    Client c = connect(APP, SECRET);
    assertTrue(c.handshake().await(5, TimeUnit.SECONDS));
    assertTrue(c.handshake().isSuccess(), () -> String.valueOf(c.handshake().cause()));
    ByteBuf ping = Frames.start(c.channel().alloc(), PING);
    ping.writeCharSequence("hi", StandardCharsets.UTF_8);
    c.channel().writeAndFlush(Frames.finish(ping));
    assertEquals(PONG + ":" + APP + ":hi", c.collector().received.poll(5, TimeUnit.SECONDS));
    assertEquals("completed:" + APP, serverSaw.poll(5, TimeUnit.SECONDS));
    assertEquals("frame:64:hi", serverSaw.poll(5, TimeUnit.SECONDS));
    c.channel().close();
  }

  @Test
  void wrongSecretIsRefusedWithAClearMessage() throws Exception {
    Client c = connect(APP, "wrong".getBytes(StandardCharsets.UTF_8));
    assertTrue(c.handshake().await(5, TimeUnit.SECONDS));
    HandshakeException e = assertInstanceOf(HandshakeException.class, c.handshake().cause());
    assertTrue(e.rejected());
    assertTrue(e.getMessage().startsWith("authentication failed for application " + APP
        + " at 127.0.0.1:" + port()), e.getMessage());
    assertTrue(c.channel().closeFuture().await(5, TimeUnit.SECONDS));
    assertTrue(serverSaw.isEmpty(), "no protocol event before authentication");
  }

  @Test
  void unknownApplicationGetsTheSameAnswerAsAWrongSecret() throws Exception {
    Client unknown = connect("application_1700000000000_0099", SECRET);
    Client wrong = connect(APP, "nope".getBytes(StandardCharsets.UTF_8));
    assertTrue(unknown.handshake().await(5, TimeUnit.SECONDS));
    assertTrue(wrong.handshake().await(5, TimeUnit.SECONDS));
    String unknownReason = unknown.handshake().cause().getMessage().replaceAll(".*: ", "");
    String wrongReason = wrong.handshake().cause().getMessage().replaceAll(".*: ", "");
    assertEquals(wrongReason, unknownReason);
    assertTrue(((HandshakeException) unknown.handshake().cause()).rejected());
  }

  @Test
  void protocolFrameBeforeTheHandshakeIsRefused() throws Exception {
    try (Socket raw = new Socket("127.0.0.1", port())) {
      raw.setSoTimeout(5000);
      OutputStream out = raw.getOutputStream();
      out.write(new byte[] {0, 0, 0, 3, PING, 'h', 'i'});
      out.flush();
      InputStream in = raw.getInputStream();
      byte[] header = in.readNBytes(5);
      assertEquals(HandshakeMessages.REJECT, header[4]);
      in.readNBytes(((header[0] & 0xff) << 24 | (header[1] & 0xff) << 16
          | (header[2] & 0xff) << 8 | (header[3] & 0xff)) - 1);
      assertEquals(-1, in.read(), "the server closes after refusing");
    }
    assertTrue(serverSaw.isEmpty());
  }

  @Test
  void oversizedFrameBeforeTheHandshakeClosesTheConnection() throws Exception {
    try (Socket raw = new Socket("127.0.0.1", port())) {
      raw.setSoTimeout(5000);
      raw.getOutputStream().write(new byte[] {0x7f, 0, 0, 0, 1, 2, 3});
      InputStream in = raw.getInputStream();
      byte[] reply = in.readAllBytes();
      assertTrue(reply.length > 4 && reply[4] == HandshakeMessages.REJECT);
    }
    Client ok = connect(APP, SECRET);
    assertTrue(ok.handshake().await(5, TimeUnit.SECONDS));
    assertTrue(ok.handshake().isSuccess());
  }

  @Test
  void silentPeerIsDisconnectedAfterTheHandshakeTimeout() throws Exception {
    // Only this server's handshake timeout is short: the others' must not lapse on a loaded
    // machine. Timed from before the connection, so the server's timer cannot start earlier.
    Channel quick = startServer(false, Duration.ofMillis(500));
    long start = System.nanoTime();
    try (Socket raw = new Socket("127.0.0.1",
        ((InetSocketAddress) quick.localAddress()).getPort())) {
      raw.setSoTimeout(5000);
      byte[] reply = raw.getInputStream().readAllBytes();
      assertTrue(reply.length > 4 && reply[4] == HandshakeMessages.REJECT);
      assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(400));
    } finally {
      quick.close().syncUninterruptibly();
    }
  }

  @Test
  void clientHandshakeTimesOutAgainstASilentServer() throws Exception {
    Channel silent = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInboundHandlerAdapter())
        .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    try {
      Future<Void>[] handshake = new Future[1];
      Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
              handshake[0] = SecureChannels.initClient(c, APP, SECRET, 1024,
                  Duration.ofMillis(300), new Collector());
            }
          })
          .connect(silent.localAddress()).syncUninterruptibly().channel();
      assertTrue(handshake[0].await(5, TimeUnit.SECONDS));
      HandshakeException e = assertInstanceOf(HandshakeException.class, handshake[0].cause());
      assertEquals(HandshakeException.Kind.TIMEOUT, e.kind());
      Await.until(Duration.ofSeconds(5), "client channel closed", () -> !ch.isOpen());
      assertFalse(ch.isActive());
    } finally {
      silent.close().syncUninterruptibly();
    }
  }

  @Test
  void encryptedChannelCarriesTheSameFramesAndHidesThem() throws Exception {
    Channel relayed = startRelayedServer();
    try (ByteRelay relay = new ByteRelay(((InetSocketAddress) relayed.localAddress()).getPort())) {
      Client c = connect(APP, SECRET, true, relay.port());
      assertTrue(c.handshake().await(5, TimeUnit.SECONDS));
      assertTrue(c.handshake().isSuccess(), () -> String.valueOf(c.handshake().cause()));
      for (String word : new String[] {"zebra-crossing", "x".repeat(900)}) {
        ByteBuf ping = Frames.start(c.channel().alloc(), PING);
        ping.writeCharSequence(word, StandardCharsets.UTF_8);
        c.channel().writeAndFlush(Frames.finish(ping));
        assertEquals(PONG + ":" + APP + ":" + word,
            c.collector().received.poll(5, TimeUnit.SECONDS));
      }
      assertFalse(relay.sawEitherWay("zebra-crossing"), "the payload is not on the wire");
      assertTrue(relay.sawEitherWay(APP), "the HELLO (before encryption) is");
      c.channel().close();
    } finally {
      relayed.close().syncUninterruptibly();
    }
  }

  @Test
  void plainChannelThroughTheSameRelayShowsThePayload() throws Exception {
    Channel relayed = startRelayedServer();
    try (ByteRelay relay = new ByteRelay(((InetSocketAddress) relayed.localAddress()).getPort())) {
      Client c = connect(APP, SECRET, false, relay.port());
      assertTrue(c.handshake().await(5, TimeUnit.SECONDS));
      assertTrue(c.handshake().isSuccess(), () -> String.valueOf(c.handshake().cause()));
      ByteBuf ping = Frames.start(c.channel().alloc(), PING);
      ping.writeCharSequence("zebra-crossing", StandardCharsets.UTF_8);
      c.channel().writeAndFlush(Frames.finish(ping));
      assertEquals(PONG + ":" + APP + ":zebra-crossing",
          c.collector().received.poll(5, TimeUnit.SECONDS));
      Await.until(Duration.ofSeconds(5), "relay saw the reply",
          () -> relay.sawEitherWay(APP + ":zebra-crossing"));
      c.channel().close();
    } finally {
      relayed.close().syncUninterruptibly();
    }
  }

  @Test
  void serverRequiringEncryptionRefusesAPlainClientNamingTheSetting() throws Exception {
    Channel strict = startServer(true, Duration.ofSeconds(10));
    try {
      int strictPort = ((InetSocketAddress) strict.localAddress()).getPort();
      Client plain = connect(APP, SECRET, false, strictPort);
      assertTrue(plain.handshake().await(5, TimeUnit.SECONDS));
      HandshakeException e = assertInstanceOf(HandshakeException.class,
          plain.handshake().cause());
      assertTrue(e.getMessage().contains("requires encrypted connections; set"
          + " tide.network.crypto.enabled=true"), e.getMessage());
      Client encrypted = connect(APP, SECRET, true, strictPort);
      assertTrue(encrypted.handshake().await(5, TimeUnit.SECONDS));
      assertTrue(encrypted.handshake().isSuccess());
      encrypted.channel().close();
    } finally {
      strict.close().syncUninterruptibly();
    }
  }

  @Test
  void encryptingClientWithAWrongSecretIsRefusedAsBefore() throws Exception {
    Client c = connect(APP, "wrong".getBytes(StandardCharsets.UTF_8), true, port());
    assertTrue(c.handshake().await(5, TimeUnit.SECONDS));
    assertTrue(((HandshakeException) c.handshake().cause()).rejected());
  }
}
