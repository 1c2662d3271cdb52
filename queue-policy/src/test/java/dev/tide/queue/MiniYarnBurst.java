package dev.tide.queue;

import dev.tide.testing.Await;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;

/**
 * A MiniYARNCluster with one NodeManager, and what the burst tests need around it: submitting
 * {@link ExecutorWaitingAm} applications, waiting for them with a deadline, and a sampler that
 * records from the ResourceManager's scheduler when each application's AM container and first
 * executor were allocated (the containers' creation times, so the sampling period does not blur
 * the intervals).
 */
final class MiniYarnBurst implements AutoCloseable {

  static final int AM_MB = 256;
  private static final long SAMPLE_MILLIS = 20;

  private final MiniYARNCluster cluster;
  private final YarnClient client;
  private final Path workDir;
  private final Path confDir;
  private final Path resultDir;
  private final Map<ApplicationId, AppTimeline> timelines = new ConcurrentHashMap<>();
  private final Thread sampler;
  private volatile boolean closed;

  /** Starts a cluster with the TESTING.md settings plus {@code extra} (queue layout). */
  MiniYarnBurst(String name, int nodeMemoryMb, Configuration extra) throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER,
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    conf.setInt(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 0);
    conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 0);
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 200);
    conf.setFloat(
        YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.0f);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    // MiniYARNCluster overwrites yarn.nodemanager.resource.memory-mb with this key (default 4096).
    conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, nodeMemoryMb);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setLong(YarnConfiguration.NM_PROCESS_KILL_WAIT_MS, 500);
    conf.setLong(YarnConfiguration.NM_SLEEP_DELAY_BEFORE_SIGKILL_MS, 250);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 1);
    conf.setBoolean("yarn.scheduler.capacity.schedule-asynchronously.enable", false);
    for (Map.Entry<String, String> entry : extra) {
      conf.set(entry.getKey(), entry.getValue());
    }
    cluster = new MiniYARNCluster(name, 1, 1, 1);
    cluster.init(conf);
    cluster.start();
    workDir = Files.createTempDirectory("tide-queue-" + name);
    confDir = Files.createDirectories(workDir.resolve("conf"));
    resultDir = Files.createDirectories(workDir.resolve("results"));
    writeClusterConfig();
    client = YarnClient.createYarnClient();
    client.init(cluster.getConfig());
    client.start();
    sampler = new Thread(this::sampleUntilClosed, "burst-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  ResourceManager resourceManager() {
    return cluster.getResourceManager();
  }

  MiniYARNCluster cluster() {
    return cluster;
  }

  /** Rewrites yarn-site.xml for the AMs, e.g. after the RM restarted on new ports. */
  void writeClusterConfig() throws IOException {
    try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
      cluster.getConfig().writeXml(out);
    }
  }

  /** Submits one {@link ExecutorWaitingAm}; returns at once. */
  ApplicationId submit(String queue, String name, Set<String> tags, int executors,
      int executorMb, long holdMillis, long giveUpMillis) throws Exception {
    return submit(queue, name, tags, ExecutorWaitingAm.class, executors + " " + executorMb
        + " " + holdMillis + " " + giveUpMillis + " " + resultDir);
  }

  /**
   * Submits one test AM whose {@code main} is in {@code amMain}, with the test classpath and the
   * cluster's configuration; returns at once.
   *
   * @param amArgs the AM's arguments, separated by spaces
   */
  ApplicationId submit(String queue, String name, Set<String> tags, Class<?> amMain,
      String amArgs) throws Exception {
    YarnClientApplication app = client.createApplication();
    ApplicationSubmissionContext context = app.getApplicationSubmissionContext();
    ApplicationId appId = context.getApplicationId();
    context.setApplicationName(name);
    context.setQueue(queue);
    context.setApplicationTags(tags);
    context.setResource(Resource.newInstance(AM_MB, 1));
    context.setMaxAppAttempts(1);
    Map<String, String> env = new HashMap<>();
    String testClassPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    env.put("CLASSPATH", confDir + File.pathSeparator + testClassPath);
    env.put("JAVA_HOME", System.getProperty("java.home"));
    String command = ApplicationConstants.Environment.JAVA_HOME.$$() + "/bin/java"
        + " -Xmx64m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
        + amMain.getName() + " " + amArgs
        + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout"
        + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr";
    context.setAMContainerSpec(ContainerLaunchContext.newInstance(
        Collections.emptyMap(), env, List.of(command), null, null, null));
    timelines.put(appId, new AppTimeline(appId, name));
    client.submitApplication(context);
    return appId;
  }

  /**
   * Waits until every application reached a final state and returns their timelines in the given
   * order, completed with the RM's start and finish times and the AM's own report.
   */
  List<AppTimeline> awaitFinished(List<ApplicationId> apps, Duration timeout) throws Exception {
    Set<YarnApplicationState> done = EnumSet.of(YarnApplicationState.FINISHED,
        YarnApplicationState.FAILED, YarnApplicationState.KILLED);
    Map<ApplicationId, ApplicationReport> reports = new LinkedHashMap<>();
    Await.until(timeout, () -> {
      try {
        return "every application finished; not yet: "
            + describeUnfinished(apps, reports.keySet());
      } catch (Exception e) {
        return "every application finished (their state unknown: " + e + ")";
      }
    }, () -> {
      for (ApplicationId appId : apps) {
        if (!reports.containsKey(appId)) {
          ApplicationReport report = client.getApplicationReport(appId);
          if (done.contains(report.getYarnApplicationState())) {
            reports.put(appId, report);
          }
        }
      }
      return reports.size() == apps.size();
    });
    List<AppTimeline> result = new ArrayList<>();
    for (ApplicationId appId : apps) {
      AppTimeline timeline = timelines.get(appId);
      ApplicationReport report = reports.get(appId);
      timeline.finish(report, readAmResult(appId));
      result.add(timeline);
    }
    return result;
  }

  private String describeUnfinished(List<ApplicationId> apps, Set<ApplicationId> finished)
      throws Exception {
    StringBuilder text = new StringBuilder();
    for (ApplicationId appId : apps) {
      if (!finished.contains(appId)) {
        ApplicationReport report = client.getApplicationReport(appId);
        text.append(appId).append('=').append(report.getYarnApplicationState()).append(' ')
            .append(report.getDiagnostics()).append("; ");
      }
    }
    return text.toString();
  }

  private String readAmResult(ApplicationId appId) throws IOException {
    Path file = resultDir.resolve(appId + ".txt");
    return Files.exists(file) ? Files.readString(file).trim() : null;
  }

  /** Where the test AMs write their results and read their signals. */
  Path resultDir() {
    return resultDir;
  }

  /** The client the applications were submitted with. */
  YarnClient client() {
    return client;
  }

  /** The current timeline of an application (sampler data so far). */
  AppTimeline timeline(ApplicationId appId) {
    return timelines.get(appId);
  }

  private void sampleUntilClosed() {
    while (!closed) {
      try {
        sampleOnce();
        Thread.sleep(SAMPLE_MILLIS);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // The RM restarts in one test; an application may vanish between two reads.
      }
    }
  }

  private void sampleOnce() {
    ResourceManager rm = cluster.getResourceManager();
    if (rm == null || rm.getRMContext() == null) {
      return;
    }
    AbstractYarnScheduler<?, ?> scheduler = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    for (AppTimeline timeline : timelines.values()) {
      RMApp rmApp = rm.getRMContext().getRMApps().get(timeline.appId);
      RMAppAttempt attempt = rmApp == null ? null : rmApp.getCurrentAppAttempt();
      if (attempt == null || scheduler == null) {
        continue;
      }
      SchedulerApplicationAttempt schedulerApp =
          scheduler.getApplicationAttempt(attempt.getAppAttemptId());
      if (schedulerApp == null) {
        continue;
      }
      Container master = attempt.getMasterContainer();
      for (RMContainer container : schedulerApp.getLiveContainers()) {
        // Until the attempt records its master container, its only container is the AM.
        boolean am = container.isAMContainer() || master == null
            || container.getContainerId().equals(master.getId());
        timeline.noteContainer(am, container.getCreationTime());
      }
    }
  }

  @Override
  public void close() throws Exception {
    closed = true;
    sampler.interrupt();
    sampler.join(5_000);
    client.stop();
    cluster.stop();
  }
}
