package dev.tide.am;

import dev.tide.am.allocation.ExitStatusClassifier;
import dev.tide.am.allocation.MaxExecutorFailures;
import dev.tide.am.security.DelegationTokens;
import dev.tide.am.security.KerberosLogin;
import dev.tide.am.security.TokenRefresher;
import dev.tide.am.staging.ContainerCommands;
import dev.tide.am.staging.UserResources;
import dev.tide.am.web.AmWebServer;
import dev.tide.am.web.AppModel;
import dev.tide.am.yarn.DriverCallbacks;
import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.am.yarn.ExecutorLauncher;
import dev.tide.am.yarn.YarnAllocator;
import dev.tide.am.yarn.YarnApplicationLiveness;
import dev.tide.app.AppOptions;
import dev.tide.app.AppSecret;
import dev.tide.app.UserClassLoader;
import dev.tide.conf.ConfigOption;
import dev.tide.conf.ConfigOptions;
import dev.tide.driver.Driver;
import dev.tide.driver.JobResult;
import dev.tide.driver.JobStatus;
import dev.tide.driver.ThrowableSummary;
import dev.tide.driver.conf.TideOptions;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAccessType;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tide ApplicationMaster: the process YARN starts in the AM container. Its life:
 * <ol>
 *   <li>load {@code tide-job.xml} (staged by {@code TideClient}) from the working directory and
 *       the application secret from the container's credentials;</li>
 *   <li>start the status HTTP server and register with the RM, with its tracking URL;</li>
 *   <li>create the {@link YarnAllocator} and the {@link Driver} (the allocator is the driver's
 *       allocation client), start the driver's RPC server, then the allocator;</li>
 *   <li>run the job to its end ({@link Driver#run()});</li>
 *   <li>release all containers, unregister with SUCCEEDED or FAILED and the job's diagnostics,
 *       delete the application's staging directory (after unregistering, or when no attempt
 *       follows), and stop everything, collecting failures rather than stopping at the
 *       first.</li>
 * </ol>
 * Killed (SIGTERM from the NodeManager, followed by SIGKILL after {@code
 * yarn.nodemanager.sleep-delay-before-sigkill.ms}), it ends the job as killed in a shutdown hook
 * that runs before Hadoop closes the FileSystems: {@code jobEnd} with state killed, the
 * uncommitted output deleted, the staging directory deleted when no attempt follows
 * ({@link #onTermination}).
 * Any exception fails the application with the exception's message. The process exits 0 after a
 * successful unregister (whatever the job's result), 1 otherwise.
 *
 * <p>Threading: {@link #run()} runs on the main thread; the allocator, launchers and status
 * server have their own threads.
 */
public final class ApplicationMaster {
  private static final Logger LOG = LoggerFactory.getLogger(ApplicationMaster.class);
  private static final Duration FAST_HEARTBEAT = Duration.ofMillis(200);
  private static final Duration SLOW_HEARTBEAT = Duration.ofSeconds(3);
  private static final int LAUNCHER_THREADS = 4;
  /**
   * Before Hadoop's hook that closes the cached FileSystems ({@link
   * FileSystem#SHUTDOWN_HOOK_PRIORITY}): the cleanup on SIGTERM needs them.
   */
  static final int SHUTDOWN_HOOK_PRIORITY = FileSystem.SHUTDOWN_HOOK_PRIORITY + 20;
  /**
   * How long the SIGTERM cleanup waits for the driver to end the job as killed. The
   * NodeManager follows SIGTERM with SIGKILL after {@code
   * yarn.nodemanager.sleep-delay-before-sigkill.ms} (250 ms by default): the driver's part and
   * the staging directory's deletion run side by side (a few HDFS calls, tens of ms), and what
   * SIGKILL cuts short the next submission cleans up (see {@code JobOutput},
   * {@code LeftoverStaging}).
   */
  private static final Duration KILL_CLEANUP_WAIT = Duration.ofSeconds(5);
  /**
   * How long the AM asks the RM whether its application was killed, when its attempt is gone
   * before SIGTERM came (the application's state shows only once the kill has passed KILLING).
   */
  private static final Duration KILLED_STATE_WAIT = Duration.ofSeconds(3);

  private final Configuration conf;
  private final ApplicationId appId;
  private final String host;
  private final byte[] secret;
  /** True when YARN starts no other attempt after this one. */
  private final boolean lastAttempt;

  private final AtomicReference<Driver> driverRef = new AtomicReference<>();
  private AMRMClient<ContainerRequest> amrmClient;
  private NMClient nmClient;
  /** How executors are asked for; stopped at the end (node-list placement's YarnClient). */
  private PlacementRequests placementRequests;
  private AmWebServer statusServer;
  /** What the web UI shows: every event of the application, as it happens. */
  private final AppModel model = new AppModel();
  private YarnAllocator allocator;
  private ExecutorService launcherPool;
  /** Keeps the delegation tokens valid on a Kerberized cluster; null otherwise. */
  private TokenRefresher tokenRefresher;
  private YarnApplicationLiveness liveness;
  private boolean registered;
  /** The application's staging directory (from the client), or null. */
  private volatile Path stagingDir;
  /** True once unregistered: no attempt follows, whatever the attempt number. */
  private volatile boolean unregistered;
  /** True once {@link #shutDown} has finished: the JVM exits on its own, not by a signal. */
  private volatile boolean shutDownDone;

  public ApplicationMaster(Configuration conf, ApplicationId appId, String host, byte[] secret) {
    this(conf, appId, host, secret, true);
  }

  /** @param lastAttempt true when YARN starts no other attempt after this one */
  public ApplicationMaster(Configuration conf, ApplicationId appId, String host, byte[] secret,
      boolean lastAttempt) {
    this.conf = conf;
    this.appId = appId;
    this.host = host;
    this.secret = secret.clone();
    this.lastAttempt = lastAttempt;
  }

  public static void main(String[] args) {
    int exitCode;
    try {
      YarnConfiguration conf = new YarnConfiguration();
      File jobConf = new File(ContainerCommands.JOB_CONF);
      if (!jobConf.isFile()) {
        throw new IOException("no " + ContainerCommands.JOB_CONF + " in the working directory "
            + new File("").getAbsolutePath() + "; was this AM submitted by TideClient?");
      }
      conf.addResource(new Path(jobConf.getAbsolutePath()));
      Optional<KerberosLogin.Keytab> keytab = AmTokens.shippedKeytab(conf);
      if (keytab.isPresent()) {
        KerberosLogin.loginProcess(keytab.get());
        LOG.info("Logged in as {} from the shipped keytab", keytab.get().principal());
      }
      String containerId = System.getenv(Environment.CONTAINER_ID.name());
      if (containerId == null) {
        throw new IllegalStateException("environment variable " + Environment.CONTAINER_ID.name()
            + " not set; the ApplicationMaster must run in a YARN container");
      }
      ApplicationAttemptId attempt =
          ContainerId.fromString(containerId).getApplicationAttemptId();
      ApplicationId appId = attempt.getApplicationId();
      int maxAttempts = Math.min(AmOptions.AM_MAX_ATTEMPTS.get(conf),
          conf.getInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS,
              YarnConfiguration.DEFAULT_RM_AM_MAX_ATTEMPTS));
      String host = System.getenv(Environment.NM_HOST.name());
      if (host == null) {
        host = java.net.InetAddress.getLocalHost().getCanonicalHostName();
      }
      // Jobs, mappers and reducers are made with the context class loader; the driver's
      // threads, started from this one, inherit it.
      Thread.currentThread().setContextClassLoader(UserClassLoader.forContainer(conf,
          new File("").getAbsoluteFile(), ApplicationMaster.class.getClassLoader()));
      ApplicationMaster am = new ApplicationMaster(conf, appId, host,
          AppSecret.fromCurrentUser(), attempt.getAttemptId() >= maxAttempts);
      // A thread of this process that dies of anything (a launcher's LinkageError, say) fails
      // the application at once instead of leaving the job waiting for what it would have done.
      Thread.setDefaultUncaughtExceptionHandler(am::threadDied);
      exitCode = am.run();
    } catch (Throwable t) {
      LOG.error("ApplicationMaster failed to start", t);
      exitCode = 1;
    }
    System.exit(exitCode);
  }

  /** Runs the application to its end; returns the process exit code. */
  public int run() {
    FinalApplicationStatus finalStatus = FinalApplicationStatus.FAILED;
    String diagnostics;
    // Read now: when the application ends the NodeManager deletes the container's directory
    // with tide-job.xml, and a Configuration that reloads its resources then (on SIGTERM) no
    // longer has it.
    String staging = conf.getTrimmed(AmOptions.STAGING_APP_DIR_KEY, "");
    stagingDir = staging.isEmpty() ? null : new Path(staging);
    ShutdownHookManager.get().addShutdownHook(this::onTermination, SHUTDOWN_HOOK_PRIORITY,
        KILL_CLEANUP_WAIT.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
    try {
      logEffectiveSettings();
      Resource maximum = startAndRegister();
      Optional<String> tooLarge = ContainerSizes.tooLarge(conf, maximum);
      if (tooLarge.isPresent()) {
        diagnostics = tooLarge.get();
        LOG.error("{} cannot run: {}", appId, diagnostics);
      } else {
        JobResult result = runJob();
        finalStatus = result.succeeded()
            ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED;
        diagnostics = result.diagnostics() == null ? "" : result.diagnostics();
        LOG.info("Job of {} ended: {} {}", appId, finalStatus, diagnostics);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      diagnostics = "ApplicationMaster of " + appId + " interrupted";
      LOG.error(diagnostics, e);
    } catch (Throwable t) {
      diagnostics = "ApplicationMaster of " + appId + " failed: " + ThrowableSummary.of(t);
      LOG.error("ApplicationMaster of {} failed", appId, t);
    }
    return shutDown(finalStatus, diagnostics);
  }

  /**
   * A thread of the AM died of {@code cause}: the job ends as failed, naming the thread and the
   * cause in YARN's diagnostics. Before the driver runs there is no job to end: the main thread
   * then sees its own failures, and this only logs.
   */
  void threadDied(Thread thread, Throwable cause) {
    LOG.error("Thread {} of the ApplicationMaster of {} died", thread.getName(), appId, cause);
    Driver driver = driverRef.get();
    if (driver != null) {
      driver.abort("ApplicationMaster of " + appId + ": thread " + thread.getName() + " died: "
          + ThrowableSummary.of(cause));
    }
  }

  /** Returns the largest container the ResourceManager grants, from its registration response. */
  private Resource startAndRegister() throws Exception {
    amrmClient = AMRMClient.createAMRMClient();
    amrmClient.init(conf);
    amrmClient.start();
    nmClient = NMClient.createNMClient();
    nmClient.init(conf);
    nmClient.start();
    // The RM kills executors when the application ends; stopping each one here only slows
    // the shutdown down.
    nmClient.cleanupRunningContainersOnStop(false);

    new AmMetricsSource(model, this::currentStatus).register(
        DefaultMetricsSystem.initialize(AmMetricsSource.PREFIX));
    statusServer = new AmWebServer(conf, host, this::currentStatus, model,
        System.getenv(Environment.CONTAINER_ID.name()) != null,
        ApplicationAcls.viewAccess(conf, appId.toString(), submittingUser()));
    statusServer.start();
    RegisterApplicationMasterResponse registration = amrmClient.registerApplicationMaster(host,
        statusServer.port(), statusServer.trackingUrl());
    registered = true;
    LOG.info("Registered {} with the ResourceManager; tracking URL {}; largest container {}",
        appId, statusServer.trackingUrl(), registration.getMaximumResourceCapability());
    return registration.getMaximumResourceCapability();
  }

  private JobResult runJob() throws Exception {
    int executorMemoryMb = AppOptions.EXECUTOR_MEMORY_MB.get(conf);
    int overheadMb = TideOptions.EXECUTOR_MEMORY_OVERHEAD_MB.get(conf);
    Resource executorResource = ContainerSizes.executor(conf);
    boolean nodeNamesIncludePort = conf.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    MaxExecutorFailures maxFailures = MaxExecutorFailures.fromConf(conf);
    String tolerated = maxFailures.fixed() > 0 ? maxFailures.describe(0)
        : "twice the most executors at once (at least 3)";
    LOG.info("More than {} executor failures within {} s fail the application", tolerated,
        AmOptions.FAILURES_VALIDITY_INTERVAL.get(conf).toSeconds());
    placementRequests = PlacementRequests.of(conf, amrmClient, executorResource,
        nodeNamesIncludePort);
    allocator = new YarnAllocator(amrmClient, placementRequests.requests(),
        new ExitStatusClassifier(executorMemoryMb, overheadMb),
        new YarnAllocator.Settings(executorResource,
            maxFailures,
            AmOptions.FAILURES_VALIDITY_INTERVAL.get(conf),
            AmOptions.MAX_FAILURES_PER_HOST.get(conf),
            AmOptions.HOST_EXCLUSION_TIMEOUT.get(conf),
            TideOptions.EXECUTOR_REGISTRATION_TIMEOUT.get(conf), FAST_HEARTBEAT, SLOW_HEARTBEAT,
            nodeNamesIncludePort, System::currentTimeMillis));

    Driver driver = new Driver(conf, appId.toString(), secret, allocator);
    driver.onEvent(model::apply);
    driver.showSubmissionSettings(List.of(AmOptions.QUEUE));
    liveness = new YarnApplicationLiveness(conf);
    driver.checkOutputOwnersWith(liveness);
    driverRef.set(driver);
    InetSocketAddress rpc = driver.start();
    String driverHost = rpc.getAddress() == null || rpc.getAddress().isAnyLocalAddress()
        ? host : rpc.getHostString();
    LOG.info("Driver of {} listening at {}:{}", appId, driverHost, rpc.getPort());

    ExecutorLaunchContexts contexts = new ExecutorLaunchContexts(conf, appId.toString(),
        driverHost, rpc.getPort(), secret, UserResources.stagedResources(conf),
        DelegationTokens.forExecutors(
            UserGroupInformation.getCurrentUser().getCredentials()));
    tokenRefresher = AmTokens.refresher(conf, driver, contexts).orElse(null);
    if (tokenRefresher != null) {
      TokenRefresher refresher = tokenRefresher;
      org.apache.hadoop.security.Credentials launched =
          UserGroupInformation.getCurrentUser().getCredentials();
      // Started once the job has started, so that tokensObtained lands in the event log.
      driver.onEvent(event -> {
        model.apply(event);
        if (event.is(dev.tide.driver.events.EventName.JOB_START)) {
          refresher.start(launched);
        }
      });
    }
    AtomicInteger launcherThreads = new AtomicInteger();
    launcherPool = Executors.newFixedThreadPool(LAUNCHER_THREADS, r -> {
      Thread t = new Thread(r, "tide-launcher-" + launcherThreads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    Map<ApplicationAccessType, String> acls = ApplicationAcls.forYarn(conf);
    ExecutorLauncher launcher = new ExecutorLauncher(contexts, (container, context) -> {
      // A NodeManager takes the application's ACLs (its container logs, yarn logs) from the
      // first container of the application it starts: on a node without the AM, an executor's.
      context.setApplicationACLs(acls);
      return nmClient.startContainer(container, context);
    }, launcherPool);
    YarnApplicationLiveness rm = liveness;
    DriverCallbacks callbacks = DriverCallbacks.of(driver,
        () -> rm.wasKilled(appId, KILLED_STATE_WAIT));
    allocator.start(callbacks, launcher, () -> driver.status().progress());
    return driver.run();
  }

  /**
   * The user who submitted the application: {@code USER}, which the NodeManager sets to it in
   * every container (the process may run as the NodeManager's own user under simple security).
   */
  private static String submittingUser() throws IOException {
    String user = System.getenv(Environment.USER.name());
    return user == null || user.isEmpty()
        ? UserGroupInformation.getCurrentUser().getShortUserName() : user;
  }




  /**
   * The end of the application's diagnostics: what ran, and how to see the whole story (the
   * history report and the event log).
   */
  private String finalSummary() {
    AppModel.Counts c = model.counts();
    int peak = 0;
    for (AppModel.Sample sample : model.samples()) {
      peak = Math.max(peak, sample.running());
    }
    String log = TideOptions.EVENT_LOG_ENABLED.get(conf)
        && !TideOptions.EVENT_LOG_DIR.get(conf).isEmpty()
        ? "; report: bin/tide history " + appId + " (event log "
            + dev.tide.driver.events.EventLog.pathFor(TideOptions.EVENT_LOG_DIR.get(conf),
                appId.toString()) + ")"
        : "";
    return "\nTide: " + model.executors().size() + " executors ran (peak " + peak + " at once, "
        + c.executorFailures() + " failed)" + (c.batches() > 0 ? ", " + c.batches()
        + " batches (" + c.delayedBatches() + " delayed)" : "") + log;
  }

  /**
   * The diagnostics the AM unregisters with: the job's, then the summary, on a line of their
   * own. The ResourceManager appends them to its own text for the attempt without a separator,
   * and after a ResourceManager restart that text is "Attempt recovered after RM restart".
   */
  static String unregisterDiagnostics(String diagnostics, String summary) {
    return "\n" + diagnostics + summary;
  }

  private JobStatus currentStatus() {
    Driver driver = driverRef.get();
    if (driver == null) {
      throw new IllegalStateException("the driver of " + appId + " is not started yet");
    }
    // The allocator is assigned before driverRef is set, so it is visible here.
    return driver.status().withWaitingReason(allocator.waitingReason());
  }

  /** Stops everything in order, collecting failures; returns the exit code. */
  private int shutDown(FinalApplicationStatus finalStatus, String diagnostics) {
    List<String> failures = new ArrayList<>();
    if (allocator != null) {
      step(failures, "stop allocator", () -> allocator.stop(Duration.ofSeconds(10)));
    }
    if (launcherPool != null) {
      launcherPool.shutdownNow();
    }
    if (tokenRefresher != null) {
      tokenRefresher.close();
    }
    if (registered) {
      try {
        amrmClient.unregisterApplicationMaster(finalStatus,
            unregisterDiagnostics(diagnostics, finalSummary()), FinalTrackingUrl.of(conf, appId));
        unregistered = true;
        LOG.info("Unregistered {} with final status {}", appId, finalStatus);
      } catch (Exception e) {
        LOG.error("Cannot unregister {} from the ResourceManager", appId, e);
        failures.add("unregister: " + e);
      }
    }
    Driver driver = driverRef.get();
    if (driver != null) {
      step(failures, "close driver", driver::close);
    }
    if (unregistered || lastAttempt) {
      // No attempt follows: the staging directory (app jar, user files, tide-job.xml) is done.
      step(failures, "delete staging directory", this::deleteStagingDir);
    }
    if (nmClient != null) {
      step(failures, "stop NMClient", nmClient::stop);
    }
    if (amrmClient != null) {
      step(failures, "stop AMRMClient", amrmClient::stop);
    }
    if (placementRequests != null) {
      step(failures, "stop the placement's YarnClient", placementRequests::close);
    }
    if (liveness != null) {
      step(failures, "stop the liveness YarnClient", liveness::close);
    }
    if (statusServer != null) {
      step(failures, "stop status server", statusServer::close);
    }
    if (!failures.isEmpty()) {
      LOG.warn("Shutdown of {} had {} failures: {}", appId, failures.size(), failures);
    }
    shutDownDone = true;
    return unregistered ? 0 : 1;
  }

  /**
   * The JVM is ending before {@link #shutDown} did (SIGTERM: the NodeManager stops the AM's
   * container because the application was killed, {@code yarn application -kill} or the
   * client's Ctrl-C, or because the node goes away). Runs in Hadoop's shutdown hook manager
   * before the FileSystems close, and does two things side by side: end the job as killed (the
   * running plan's uncommitted output deleted, {@code jobEnd} with state killed written and the
   * event log closed) on the driver's thread and, meanwhile, delete the staging directory when
   * no attempt follows. The NodeManager's SIGKILL may cut it short; each step's time after the
   * signal is logged.
   */
  private void onTermination() {
    if (shutDownDone) {
      return;
    }
    long start = System.nanoTime();
    LOG.warn("ApplicationMaster of {} is being stopped (SIGTERM: the application was killed, or"
        + " its container stopped); ending the job as killed", appId);
    Driver driver = driverRef.get();
    // The driver's thread ends the job while this one deletes the staging directory.
    CompletableFuture<Boolean> killed = driver == null
        ? CompletableFuture.completedFuture(false)
        : driver.kill("application " + appId + " was killed (its ApplicationMaster was stopped"
            + " by SIGTERM)");
    if (unregistered || lastAttempt) {
      try {
        boolean deleted = deleteStagingDir();
        LOG.warn("Staging directory of {} {} {} ms after SIGTERM", appId,
            deleted ? "deleted" : "not deleted (none)", millisSince(start));
      } catch (IOException e) {
        LOG.warn("Cannot delete the staging directory of {}", appId, e);
      }
    }
    try {
      boolean done = killed.get(KILL_CLEANUP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      LOG.warn("Job of {} {} {} ms after SIGTERM", appId, done
          ? "ended as killed (uncommitted output deleted, event log written)"
          : "was not running (no driver, or it had stopped)", millisSince(start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("Job of {} could not be ended as killed within {} ms", appId,
          KILL_CLEANUP_WAIT.toMillis(), e);
    }
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /** Deletes the staging directory; returns false when there was none. */
  private boolean deleteStagingDir() throws IOException {
    if (stagingDir == null) {
      return false;
    }
    boolean deleted = stagingDir.getFileSystem(conf).delete(stagingDir, true);
    if (deleted) {
      LOG.info("Deleted the staging directory {} of {}", stagingDir, appId);
    }
    return deleted;
  }

  private interface Step {
    void run() throws Exception;
  }

  private void step(List<String> failures, String what, Step step) {
    try {
      step.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failures.add(what + ": interrupted");
    } catch (Exception e) {
      LOG.warn("Shutdown step '{}' of {} failed", what, appId, e);
      failures.add(what + ": " + e);
    }
  }

  private void logEffectiveSettings() {
    List<ConfigOption<?>> options = new ArrayList<>(AmOptions.all());
    options.addAll(TideOptions.all());
    ConfigOptions.validate(conf, options);
    LOG.info("ApplicationMaster of {} on {}: {}", appId, host,
        ConfigOptions.describe(conf, options));
  }

}
