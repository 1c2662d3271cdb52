package dev.tide.shuffle.yarn;

import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.server.ShuffleServer;
import dev.tide.shuffle.server.ShuffleServerConfig;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManager auxiliary service {@code tide_shuffle}: a narrow adapter that runs a
 * {@link ShuffleServer} inside the NodeManager and feeds it the NodeManager's applications.
 * Configure in yarn-site.xml:
 * <pre>
 *   yarn.nodemanager.aux-services = tide_shuffle
 *   yarn.nodemanager.aux-services.tide_shuffle.class = dev.tide.shuffle.yarn.TideShuffleService
 * </pre>
 * Settings are in {@link ShuffleServiceOptions}. With NodeManager recovery enabled the
 * registered applications are kept in the recovery dir ({@link RecoveryStore}) and served again
 * after a restart. The secret of an application arrives as the
 * service data of its containers' launch contexts. A failure to start is logged and leaves the
 * NodeManager running unless {@code tide.shuffle.stopOnFailure=true}. Its metrics are published
 * through the NodeManager's metrics system as source {@code TideShuffle-<port>}
 * ({@link ShuffleMetricsSource}) and unregistered on stop.
 *
 * <p>Threading: the NodeManager calls the lifecycle methods from its service thread and the
 * application callbacks from its dispatcher; all state is in the server's thread-safe registry.
 * No static mutable state (several NodeManagers may share a JVM).
 */
public class TideShuffleService extends AuxiliaryService {
  private static final Logger LOG = LoggerFactory.getLogger(TideShuffleService.class);

  private volatile ShuffleServer server;
  private volatile ShuffleMetricsSource metrics;
  private volatile RecoveryStore recovery;
  private volatile boolean running;
  private boolean stopOnFailure;

  private final MetricsSystem metricsSystem;

  public TideShuffleService() {
    this(DefaultMetricsSystem.instance());
  }

  /** @param metricsSystem where the metrics source is published (tests pass their own) */
  TideShuffleService(MetricsSystem metricsSystem) {
    super(ShuffleServiceMetadata.SERVICE_NAME);
    this.metricsSystem = metricsSystem;
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    stopOnFailure = ShuffleServiceOptions.stopOnFailure(conf);
    LOG.info("tide_shuffle settings: {}", ShuffleServiceOptions.describe(conf));
    Set<String> unknown = ShuffleServiceOptions.unknownKeys(conf);
    if (!unknown.isEmpty()) {
      LOG.warn("tide_shuffle ignores {}: no setting of the service has that name (a typo, or a"
          + " setting of jobs, which belongs in tide-site.xml)", unknown);
    }
    try {
      ShuffleServerConfig config = ShuffleServiceOptions.serverConfig(conf);
      ShuffleMetricsSource source =
          new ShuffleMetricsSource(ShuffleServiceOptions.quantileIntervalSeconds(conf));
      ShuffleServer created = new ShuffleServer(config, source.stats());
      source.bind(created);
      metrics = source;
      if (getRecoveryPath() != null) {
        recovery = new RecoveryStore(java.nio.file.Path.of(getRecoveryPath().toUri().getPath()));
        for (var app : recovery.load()) {
          created.registerApplication(app.appId(), app.user(), app.secret());
        }
        LOG.info("recovered {} application(s) from {}", created.registeredApplications().size(),
            recovery.location());
      }
      server = created;
    } catch (RuntimeException | java.io.IOException e) {
      failed("configure", e);
    } catch (LinkageError e) {
      // leveldbjni missing from the NodeManager or its native library not loadable
      failed("open its recovery store", new java.io.IOException(e));
    }
    super.serviceInit(conf);
  }

  @Override
  protected void serviceStart() throws Exception {
    if (server != null) {
      try {
        server.start();
        running = true;
        registerMetrics(server.port());
      } catch (Exception e) {
        failed("start", e);
      }
    }
    super.serviceStart();
  }

  /** Publishes the metrics as TideShuffle-port; a failure is logged, never fatal. */
  private void registerMetrics(int port) {
    ShuffleMetricsSource source = metrics;
    try {
      String name = source.register(metricsSystem, port);
      LOG.info("tide_shuffle metrics published as source {}", name);
    } catch (RuntimeException e) {
      LOG.warn("cannot publish tide_shuffle metrics for port {}; serving without them", port, e);
    }
  }

  @Override
  protected void serviceStop() throws Exception {
    running = false;
    ShuffleMetricsSource source = metrics;
    if (source != null) {
      try {
        source.unregister(metricsSystem);
      } catch (RuntimeException e) {
        LOG.warn("cannot unregister tide_shuffle metrics", e);
      }
    }
    ShuffleServer s = server;
    if (s != null) {
      s.close();
    }
    RecoveryStore store = recovery;
    recovery = null;
    if (store != null) {
      try {
        store.close();
      } catch (java.io.IOException | RuntimeException e) {
        LOG.warn("cannot close {}", store.location(), e);
      }
    }
    super.serviceStop();
  }

  /** The metrics source, null if the service did not configure (tests). */
  MetricsSource metricsSource() {
    return metrics;
  }

  private void failed(String what, Exception e) throws Exception {
    if (stopOnFailure) {
      throw e;
    }
    LOG.error("tide_shuffle could not {}; the NodeManager keeps running without it ({}=false)",
        what, ShuffleServiceOptions.STOP_ON_FAILURE.key(), e);
    server = null;
    ShuffleMetricsSource source = metrics;
    if (source != null) {
      source.unregister(metricsSystem);
    }
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    String appId = String.valueOf(context.getApplicationId());
    ShuffleServer s = server;
    if (s == null) {
      LOG.warn("tide_shuffle is not running; application {} will not be served", appId);
      return;
    }
    ByteBuffer data = context.getApplicationDataForService();
    if (data == null || !data.hasRemaining()) {
      LOG.warn("application {} of user {} sent no shuffle secret; it will not be served", appId,
          context.getUser());
      return;
    }
    byte[] secret = new byte[data.remaining()];
    data.duplicate().get(secret);
    try {
      boolean known = s.isRegistered(appId);
      s.registerApplication(appId, context.getUser(), secret);
      if (!known) {
        persist(store -> store.put(new RegisteredApp(appId, context.getUser(), secret)));
      }
    } catch (IllegalArgumentException e) {
      LOG.error("cannot register application {} of user {}: {}", appId, context.getUser(),
          e.getMessage());
    }
  }

  private interface StoreChange {
    void apply(RecoveryStore store) throws java.io.IOException;
  }

  /** Records a change for NodeManager recovery, when enabled; failures are logged. */
  private void persist(StoreChange change) {
    RecoveryStore store = recovery;
    if (store == null) {
      return;
    }
    try {
      change.apply(store);
    } catch (java.io.IOException | RuntimeException e) {
      LOG.error("cannot update tide_shuffle applications in {}; the change will not survive a "
          + "NodeManager restart", store.location(), e);
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    ShuffleServer s = server;
    String appId = String.valueOf(context.getApplicationId());
    if (s != null && s.isRegistered(appId)) {
      s.removeApplication(appId);
      persist(store -> store.remove(appId));
    }
  }

  /** The bound port as {@link ShuffleServiceMetadata#encodePort}; empty if not running. */
  @Override
  public ByteBuffer getMetaData() {
    ShuffleServer s = server;
    if (!running || s == null || s.port() == 0) {
      return ByteBuffer.allocate(0);
    }
    return ShuffleServiceMetadata.encodePort(s.port());
  }

  /** The bound port, 0 if not running (tests, metrics). */
  public int port() {
    ShuffleServer s = server;
    return running && s != null ? s.port() : 0;
  }
}
