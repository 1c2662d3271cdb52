package dev.tide.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.testing.ByteRelay;
import dev.tide.testing.Await;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver<->executor RPC ({@link RpcChannels}, both real ends) through a TCP relay that keeps
 * the bytes: with encryption the executor's registration and the job configuration the driver
 * sends back (carrying a distinctive key) arrive intact and are not on the wire; without it they
 * are. A driver that encrypts refuses an executor that does not, naming the setting.
 */
class RpcEncryptionTest {
  private static final String APP = "application_1700000000000_0042";
  private static final byte[] SECRET = "rpc-secret".getBytes(StandardCharsets.UTF_8);
  private static final String KEY = "zebra-crossing-conf-5519";

  private RpcChannels driver;
  private RpcChannels executor;
  private final BlockingQueue<RpcMessage> driverGot = new LinkedBlockingQueue<>();
  private final BlockingQueue<RpcMessage> executorGot = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() {
    driver = new RpcChannels("test-driver-rpc");
    executor = new RpcChannels("test-executor-rpc");
  }

  @AfterEach
  void stop() {
    executor.close();
    driver.close();
  }

  /** A driver that answers every registration with the job configuration bytes. */
  private int listen(boolean encrypt) throws IOException {
    return driver.listen(0, APP, SECRET, new RpcListener() {
      @Override
      public void onMessage(Channel channel, RpcMessage message) {
        driverGot.add(message);
        RpcChannels.send(channel, new RpcMessage.Registered(
            ("tide.secret.thing=" + KEY).getBytes(StandardCharsets.UTF_8)));
      }

      @Override
      public void onClose(Channel channel) {}
    }, encrypt).getPort();
  }

  private Channel connect(int port, boolean encrypt) throws IOException {
    return executor.connect("127.0.0.1", port, APP, SECRET, new RpcListener() {
      @Override
      public void onMessage(Channel channel, RpcMessage message) {
        executorGot.add(message);
      }

      @Override
      public void onClose(Channel channel) {}
    }, 10_000, encrypt);
  }

  private ByteRelay registerThroughRelay(boolean encrypt) throws Exception {
    ByteRelay relay = new ByteRelay(listen(encrypt));
    Channel ch = connect(relay.port(), encrypt);
    RpcChannels.send(ch, new RpcMessage.RegisterExecutor("exec-" + KEY, "host-1", 2, 7));
    RpcMessage got = driverGot.poll(10, TimeUnit.SECONDS);
    assertEquals(new RpcMessage.RegisterExecutor("exec-" + KEY, "host-1", 2, 7), got);
    RpcMessage.Registered reply = assertInstanceOf(RpcMessage.Registered.class,
        executorGot.poll(10, TimeUnit.SECONDS));
    assertArrayEquals(("tide.secret.thing=" + KEY).getBytes(StandardCharsets.UTF_8),
        reply.jobConf());
    ch.close();
    return relay;
  }

  @Test
  void encryptedRpcCarriesTheMessagesAndHidesThem() throws Exception {
    try (ByteRelay relay = registerThroughRelay(true)) {
      assertFalse(relay.sawEitherWay(KEY), "neither message is readable on the wire");
      assertTrue(relay.sawEitherWay(APP), "the handshake's HELLO is (it names the application)");
    }
  }

  @Test
  void plainRpcShowsTheMessagesOnTheWire() throws Exception {
    try (ByteRelay relay = registerThroughRelay(false)) {
      Await.until(Duration.ofSeconds(5), "the key in the relayed bytes",
          () -> relay.sawEitherWay("exec-" + KEY) && relay.sawEitherWay("thing=" + KEY));
    }
  }

  @Test
  void anEncryptingDriverRefusesAPlainExecutorNamingTheSetting() throws Exception {
    int port = listen(true);
    IOException e = assertThrows(IOException.class, () -> connect(port, false));
    assertTrue(e.getMessage().contains("tide.network.crypto.enabled=true"), e.getMessage());
    assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    assertTrue(driverGot.isEmpty());
  }
}
