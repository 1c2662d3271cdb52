package dev.tide.shuffle.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.testing.MapOutputs;
import dev.tide.testing.Await;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsTag;
import org.apache.hadoop.metrics2.impl.MetricsSystemImpl;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's metrics move with what it does, are published through a metrics system (and so
 * JMX, as in the NodeManager's /jmx) under a per-port name, and are gone after stop.
 */
class ShuffleMetricsTest {
  private static final String USER = "dave";
  private static final byte[] SECRET = "metrics-secret".getBytes(StandardCharsets.UTF_8);
  private static final int[] LENGTHS = {10, 20, 30};

  @TempDir Path nm;
  private final ApplicationId appId = new TestingApplicationId(1700000000000L, 77);
  private MetricsSystemImpl metricsSystem;
  private TideShuffleService service;

  @BeforeEach
  void start() throws Exception {
    metricsSystem = new MetricsSystemImpl();
    metricsSystem.init("TideShuffleMetricsTest");
    Configuration conf = new Configuration(false);
    conf.setInt(ShuffleServiceOptions.PORT.key(), 0);
    conf.set(ShuffleServiceOptions.NM_LOCAL_DIRS, nm.toString());
    conf.setInt(ShuffleServiceOptions.METRICS_QUANTILE_INTERVAL.key(), 1);
    service = new TideShuffleService(metricsSystem);
    service.init(conf);
    service.start();
    service.initializeApplication(new ApplicationInitializationContext(USER, appId,
        ByteBuffer.wrap(SECRET)));
    MapOutputs.write(List.of(ShuffleLayout.appLocalDir(nm, USER, appId.toString())), 0, 0,
        LENGTHS);
  }

  @AfterEach
  void stop() {
    service.stop();
    metricsSystem.shutdown();
  }

  private Map<String, Number> metrics() {
    RecordingCollector collector = new RecordingCollector();
    service.metricsSource().getMetrics(collector, true);
    return collector.values;
  }

  @Test
  void countersMoveWithFetchesAndRefusals() throws Exception {
    Map<String, Number> before = metrics();
    assertEquals(0L, before.get("FetchesServed"));
    assertEquals(0L, before.get("BytesServed"));
    assertEquals(1, before.get("RegisteredApplications"));

    try (ShuffleClient client = new ShuffleClient(appId.toString(), SECRET)) {
      client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0),
          new BlockId(0, 0, 1, 3)));
      client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 2)));
      assertThrows(ShuffleFetchException.class,
          () -> client.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 9, 0))));
      // A reply is counted when its last byte is handed to the kernel, which can be just after
      // the client has it.
      Await.until(Duration.ofSeconds(5), "the fetches to be counted",
          () -> metrics().get("FetchesFailed").longValue() == 1L
              && metrics().get("FetchesServed").longValue() == 2L);
      Map<String, Number> after = metrics();
      assertEquals(1L, after.get("FetchesFailed"));
      assertEquals(3L, after.get("BlocksServed"));
      assertEquals(10L + 20 + 30 + 30, after.get("BytesServed"));
      assertEquals(1, after.get("OpenConnections"));
      assertEquals(0, after.get("ActiveFetches"));
      assertEquals(0, after.get("OpenFiles"));
      assertTrue(after.get("IdleOpenFiles").intValue() >= 1, "served files kept open: " + after);
      assertTrue(after.get("IndexCacheBytes").longValue() > 0, "index cached");
      assertEquals(2L, after.get("FetchLatencyNumOps"));
      assertTrue(after.containsKey("FetchLatency1s99thPercentileLatencyMicros"), after.toString());
    }
    try (ShuffleClient intruder = new ShuffleClient(appId.toString(),
        "wrong".getBytes(StandardCharsets.UTF_8))) {
      assertThrows(ShuffleFetchException.class,
          () -> intruder.fetch("127.0.0.1", service.port(), List.of(BlockId.of(0, 0, 0))));
    }
    Await.until(Duration.ofSeconds(5), "the auth failure to be counted",
        () -> metrics().get("AuthFailures").longValue() == 1L);
    // The 1 s latency window rolls over and then reports the two fetches.
    Await.until(Duration.ofSeconds(5), "the latency window to roll over",
        () -> metrics().get("FetchLatency1sNumFetches").longValue() == 2L);
  }

  @Test
  void publishedInJmxUnderThePortAndGoneAfterStop() throws Exception {
    try (ShuffleClient client = new ShuffleClient(appId.toString(), SECRET)) {
      client.fetch("127.0.0.1", service.port(), List.of(new BlockId(0, 0, 0, 3)));
    }
    MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("Hadoop:service=TideShuffleMetricsTest,name=TideShuffle-"
        + service.port());
    assertTrue(mbeans.isRegistered(name), "bean " + name);
    // The bean caches values for the metrics period (1 s here, from
    // hadoop-metrics2-tideshufflemetricstest.properties).
    Await.until(Duration.ofSeconds(5), "BytesServed to reach JMX",
        () -> jmxLong(mbeans, name, "BytesServed") == 60L);
    assertEquals(1L, jmxLong(mbeans, name, "FetchesServed"));
    assertEquals(1, ((Number) mbeans.getAttribute(name, "RegisteredApplications")).intValue());
    service.stop();
    assertFalse(mbeans.isRegistered(name), "bean unregistered on stop");
  }

  private static long jmxLong(MBeanServer mbeans, ObjectName name, String attribute) {
    try {
      return ((Number) mbeans.getAttribute(name, attribute)).longValue();
    } catch (Exception e) {
      throw new AssertionError("cannot read " + attribute + " of " + name, e);
    }
  }

  /** Collects one record's metrics by name (the test's own minimal MetricsCollector). */
  private static final class RecordingCollector implements MetricsCollector {
    final Map<String, Number> values = new HashMap<>();

    @Override
    public MetricsRecordBuilder addRecord(String name) {
      return new Builder();
    }

    @Override
    public MetricsRecordBuilder addRecord(MetricsInfo info) {
      return new Builder();
    }

    private final class Builder extends MetricsRecordBuilder {
      @Override public MetricsRecordBuilder tag(MetricsInfo info, String value) { return this; }
      @Override public MetricsRecordBuilder add(MetricsTag tag) { return this; }
      @Override public MetricsRecordBuilder add(AbstractMetric metric) {
        values.put(metric.name(), metric.value());
        return this;
      }
      @Override public MetricsRecordBuilder setContext(String value) { return this; }
      @Override public MetricsRecordBuilder addCounter(MetricsInfo info, int value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsRecordBuilder addCounter(MetricsInfo info, long value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsRecordBuilder addGauge(MetricsInfo info, int value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsRecordBuilder addGauge(MetricsInfo info, long value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsRecordBuilder addGauge(MetricsInfo info, float value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsRecordBuilder addGauge(MetricsInfo info, double value) {
        values.put(info.name(), value);
        return this;
      }
      @Override public MetricsCollector parent() { return RecordingCollector.this; }
    }
  }
}
