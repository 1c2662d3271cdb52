package dev.tide.shuffle.yarn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.testing.MapOutputs;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aux service as a NodeManager drives it: init, start, applications come and go. */
class TideShuffleServiceTest {
  private static final String USER = "carol";
  private static final byte[] SECRET = "app-secret-bytes".getBytes(StandardCharsets.UTF_8);

  @TempDir Path nm1;
  @TempDir Path nm2;
  private final ApplicationId appId = new TestingApplicationId(1700000000000L, 12);
  private TideShuffleService service;

  private Configuration conf(int port) {
    Configuration conf = new Configuration(false);
    conf.setInt(ShuffleServiceOptions.PORT.key(), port);
    conf.set(ShuffleServiceOptions.NM_LOCAL_DIRS, nm1 + "," + "file://" + nm2);
    return conf;
  }

  @AfterEach
  void stop() {
    if (service != null) {
      service.stop();
    }
  }

  @Test
  void servesAnApplicationFromInitializeToStop() throws Exception {
    service = new TideShuffleService();
    assertEquals(ShuffleServiceMetadata.SERVICE_NAME, service.getName());
    service.init(conf(0));
    service.start();
    int port = ShuffleServiceMetadata.decodePort(service.getMetaData());
    assertNotEquals(0, port);

    ByteBuffer serviceData = ByteBuffer.wrap(SECRET);
    service.initializeApplication(new ApplicationInitializationContext(USER, appId, serviceData));
    // Once per container: registering again is harmless.
    service.initializeApplication(new ApplicationInitializationContext(USER, appId,
        ByteBuffer.wrap(SECRET)));
    service.initializeContainer(null);
    service.stopContainer(null);

    String app = appId.toString();
    assertEquals("application_1700000000000_0012", app);
    List<Path> appDirs = List.of(ShuffleLayout.appLocalDir(nm1, USER, app),
        ShuffleLayout.appLocalDir(nm2, USER, app));
    int[] lengths = {11, 0, 222};
    MapOutputs.write(appDirs, 0, 0, lengths);
    MapOutputs.write(appDirs, 0, 1, lengths);

    try (ShuffleClient client = new ShuffleClient(app, SECRET)) {
      List<byte[]> data = client.fetch("127.0.0.1", port,
          List.of(new BlockId(0, 0, 0, 3), BlockId.of(0, 1, 2)));
      assertArrayEquals(MapOutputs.expected(0, 0, lengths, 0, 3), data.get(0));
      assertArrayEquals(MapOutputs.expected(0, 1, lengths, 2, 3), data.get(1));

      service.stopApplication(new ApplicationTerminationContext(appId));
      ShuffleFetchException e = assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", port, List.of(BlockId.of(0, 0, 0))));
      assertEquals(Reason.AUTH, e.reason());
    }
    try (ShuffleClient fresh = new ShuffleClient(app, SECRET)) {
      assertEquals(Reason.AUTH, assertThrows(ShuffleFetchException.class,
          () -> fresh.fetch("127.0.0.1", port, List.of(BlockId.of(0, 0, 0)))).reason());
    }
  }

  @Test
  void applicationsSurviveANodeManagerRestartWithRecovery(@TempDir Path recoveryDir)
      throws Exception {
    String app = appId.toString();
    String gone = "application_1700000000000_0013";
    TideShuffleService before = new TideShuffleService();
    before.setRecoveryPath(new org.apache.hadoop.fs.Path(recoveryDir.toUri()));
    before.init(conf(0));
    before.start();
    before.initializeApplication(new ApplicationInitializationContext(USER, appId,
        ByteBuffer.wrap(SECRET)));
    ApplicationId goneId = new TestingApplicationId(1700000000000L, 13);
    before.initializeApplication(new ApplicationInitializationContext(USER, goneId,
        ByteBuffer.wrap(SECRET)));
    // Map output written while the first NodeManager ran; it stays in the local dirs.
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm1, USER, app)), 0, 0, new int[] {9});
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm1, USER, gone)), 0, 0, new int[] {9});
    before.stopApplication(new ApplicationTerminationContext(goneId));
    before.stop();

    // The store holds exactly the application that was not stopped.
    try (RecoveryStore store = new RecoveryStore(recoveryDir)) {
      List<RegisteredApp> stored = store.load();
      assertEquals(1, stored.size());
      assertEquals(app, stored.get(0).appId());
      assertEquals(USER, stored.get(0).user());
      assertArrayEquals(SECRET, stored.get(0).secret());
    }

    service = new TideShuffleService();
    service.setRecoveryPath(new org.apache.hadoop.fs.Path(recoveryDir.toUri()));
    service.init(conf(0));
    service.start();
    try (ShuffleClient client = new ShuffleClient(app, SECRET);
         ShuffleClient stopped = new ShuffleClient(gone, SECRET)) {
      assertArrayEquals(MapOutputs.expected(0, 0, new int[] {9}, 0, 1),
          client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0))).get(0));
      assertEquals(Reason.AUTH, assertThrows(ShuffleFetchException.class,
          () -> stopped.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0)))).reason());
    }
    // Stopping it after the restart removes it from the store too.
    service.stopApplication(new ApplicationTerminationContext(appId));
    service.stop();
    service = null;
    try (RecoveryStore store = new RecoveryStore(recoveryDir)) {
      assertEquals(List.of(), store.load());
    }
  }

  @Test
  void theOneFileStoreOfEarlierVersionsIsImportedOnce(@TempDir Path recoveryDir)
      throws Exception {
    java.nio.file.Files.writeString(recoveryDir.resolve(RecoveryStore.LEGACY_FILE_NAME),
        appId + "\t" + USER + "\t" + java.util.Base64.getEncoder().encodeToString(SECRET)
            + "\n");
    service = new TideShuffleService();
    service.setRecoveryPath(new org.apache.hadoop.fs.Path(recoveryDir.toUri()));
    service.init(conf(0));
    service.start();
    assertTrue(java.nio.file.Files.notExists(
        recoveryDir.resolve(RecoveryStore.LEGACY_FILE_NAME)));
    String app = appId.toString();
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm1, USER, app)), 0, 0, new int[] {5});
    try (ShuffleClient client = new ShuffleClient(app, SECRET)) {
      assertEquals(5, client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0)))
          .get(0).length);
    }
  }

  @Test
  void stopApplicationForAnUnknownAppIsHarmless() {
    service = new TideShuffleService();
    service.init(conf(0));
    service.start();
    service.stopApplication(new ApplicationTerminationContext(new TestingApplicationId(1, 1)));
    assertEquals(Service.STATE.STARTED, service.getServiceState());
  }

  @Test
  void twoServicesInOneJvmAreIndependent() throws Exception {
    service = new TideShuffleService();
    service.init(conf(0));
    service.start();
    TideShuffleService second = new TideShuffleService();
    try {
      Configuration conf2 = new Configuration(false);
      conf2.setInt(ShuffleServiceOptions.PORT.key(), 0);
      conf2.set(ShuffleServiceOptions.NM_LOCAL_DIRS, nm2.toString());
      second.init(conf2);
      second.start();
      assertNotEquals(service.port(), second.port());
      service.initializeApplication(new ApplicationInitializationContext(USER, appId,
          ByteBuffer.wrap(SECRET)));
      MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm2, USER, appId.toString())), 0, 0,
          new int[] {5});
      try (ShuffleClient client = new ShuffleClient(appId.toString(), SECRET)) {
        assertEquals(5, client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0)))
            .get(0).length);
        assertEquals(Reason.AUTH, assertThrows(ShuffleFetchException.class,
            () -> client.fetch("127.0.0.1", second.port(), List.of(BlockId.of(0, 0, 0)))).reason());
      }
    } finally {
      second.stop();
    }
  }

  @Test
  void startFailureIsLoggedAndTheNodeManagerKeepsRunning() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      service = new TideShuffleService();
      service.init(conf(taken.getLocalPort()));
      service.start();
      assertEquals(Service.STATE.STARTED, service.getServiceState());
      assertEquals(0, service.getMetaData().remaining());
      service.initializeApplication(new ApplicationInitializationContext(USER, appId,
          ByteBuffer.wrap(SECRET)));
    }
  }

  @Test
  void startFailureStopsTheNodeManagerWhenConfigured() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      Configuration conf = conf(taken.getLocalPort());
      conf.setBoolean(ShuffleServiceOptions.STOP_ON_FAILURE.key(), true);
      TideShuffleService strict = new TideShuffleService();
      strict.init(conf);
      Exception e = assertThrows(Exception.class, strict::start);
      assertTrue(String.valueOf(e.getMessage()).contains("cannot bind"), String.valueOf(e));
      strict.stop();
    }
  }

  @Test
  void everyDefaultIsValidAndOutOfRangeSettingsAreNamed() {
    Configuration conf = conf(0);
    var config = ShuffleServiceOptions.serverConfig(conf);
    assertEquals(2048, config.maxConnections());
    assertEquals(256L << 20, config.maxInFlightBytesPerConnection());
    assertEquals(java.time.Duration.ofSeconds(120), config.idleTimeout());
    for (var option : ShuffleServiceOptions.ALL) {
      assertTrue(option.key().startsWith("tide.shuffle."), option.key());
    }
    conf.set(ShuffleServiceOptions.MAX_CONNECTIONS.key(), "0");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShuffleServiceOptions.serverConfig(conf));
    assertEquals("bad value for tide.shuffle.maxConnections = '0': must be at least 1",
        e.getMessage());
    conf.set(ShuffleServiceOptions.MAX_CONNECTIONS.key(), "10");
    conf.set(ShuffleServiceOptions.EPOLL.key(), "yes");
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ShuffleServiceOptions.serverConfig(conf)).getMessage()
        .contains("bad value for tide.shuffle.epoll.enabled = 'yes': expected true or false"));
  }

  @Test
  void unitsAreWrittenAsPeopleWriteThemAndOldKeysStillWork() {
    Configuration conf = conf(0);
    conf.set("tide.shuffle.idleTimeout.ms", "5000"); // old name, bare number in its unit
    conf.set("tide.shuffle.maxReply.bytes", "1048576");
    conf.set(ShuffleServiceOptions.HANDSHAKE_TIMEOUT.key(), "3s");
    conf.set(ShuffleServiceOptions.MAX_IN_FLIGHT.key(), "2g");
    conf.set(ShuffleServiceOptions.COPY_BELOW.key(), "16k");
    var config = ShuffleServiceOptions.serverConfig(conf);
    assertEquals(java.time.Duration.ofSeconds(5), config.idleTimeout());
    assertEquals(1L << 20, config.maxReplyBytes());
    assertEquals(java.time.Duration.ofSeconds(3), config.handshakeTimeout());
    assertEquals(2L << 30, config.maxInFlightBytes());
    assertEquals(16 << 10, config.copyBelowBytes());
    conf.set("tide.shuffle.idleTimeout", "2m"); // the new name wins over the old one
    assertEquals(java.time.Duration.ofMinutes(2),
        ShuffleServiceOptions.serverConfig(conf).idleTimeout());
    conf.set("tide.shuffle.maxReplyy", "1m");
    assertEquals(java.util.Set.of("tide.shuffle.maxReplyy"),
        ShuffleServiceOptions.unknownKeys(conf));
    conf.set("tide.shuffle.maxReply.bytes", "lots");
    assertEquals("bad value for tide.shuffle.maxReply.bytes (deprecated name of"
        + " tide.shuffle.maxReply) = 'lots': expected a size such as 262144, 64k, 64m or 1g (a bare"
        + " number is bytes)", assertThrows(IllegalArgumentException.class,
            () -> ShuffleServiceOptions.serverConfig(conf)).getMessage());
  }

  @Test
  void badSettingWithoutStopOnFailureLeavesTheNodeManagerRunning() throws Exception {
    Configuration conf = conf(0);
    conf.set(ShuffleServiceOptions.MAX_CONNECTIONS.key(), "-1");
    org.apache.hadoop.metrics2.impl.MetricsSystemImpl metrics =
        new org.apache.hadoop.metrics2.impl.MetricsSystemImpl();
    service = new TideShuffleService(metrics);
    service.init(conf);
    service.start();
    assertEquals(Service.STATE.STARTED, service.getServiceState());
    assertEquals(0, service.getMetaData().remaining());
    assertEquals(0, service.port());
    service.initializeApplication(new ApplicationInitializationContext(USER, appId,
        ByteBuffer.wrap(SECRET)));
    service.stopApplication(new ApplicationTerminationContext(appId));
    service.stop();
    assertEquals(Service.STATE.STOPPED, service.getServiceState());
  }

  @Test
  void startFailureLeavesNoMetricsSourceBehind() throws Exception {
    org.apache.hadoop.metrics2.impl.MetricsSystemImpl metrics =
        new org.apache.hadoop.metrics2.impl.MetricsSystemImpl();
    metrics.init("TideShuffleStartFailureTest");
    try (ServerSocket taken = new ServerSocket(0)) {
      service = new TideShuffleService(metrics);
      service.init(conf(taken.getLocalPort()));
      service.start();
      assertEquals(Service.STATE.STARTED, service.getServiceState());
      assertEquals(null, metrics.getSource("TideShuffle-" + taken.getLocalPort()));
    } finally {
      service.stop();
      metrics.shutdown();
    }
  }

  @Test
  void badSettingIsNamed() {
    Configuration conf = conf(0);
    conf.set(ShuffleServiceOptions.DISK_THREADS.key(), "many");
    conf.setBoolean(ShuffleServiceOptions.STOP_ON_FAILURE.key(), true);
    TideShuffleService strict = new TideShuffleService();
    Exception e = assertThrows(Exception.class, () -> strict.init(conf));
    assertTrue(String.valueOf(e.getMessage()).contains("tide.shuffle.disk.threads"), String.valueOf(e));
  }
}
