package dev.tide.queue;

import dev.tide.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.SchedulingMode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.IteratorSelector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CapacityScheduler application ordering policy that starts a leaf queue's applications one at a
 * time: an application gets its executors before the next one gets its AM container, so a burst
 * of submissions cannot fill the queue with drivers that then wait forever for executors.
 *
 * <p>Enable it per leaf queue:
 * <pre>
 * yarn.scheduler.capacity.root.batch.ordering-policy=dev.tide.queue.DripFeedOrderingPolicy
 * yarn.scheduler.capacity.root.batch.ordering-policy.starting-timeout=5m
 * yarn.scheduler.capacity.root.batch.ordering-policy.max-starting=1
 * yarn.scheduler.capacity.root.batch.ordering-policy.skip-tag=tide-queue-policy-skip
 * </pre>
 *
 * <p>It keeps FIFO's order and preemption iterator and only filters the assignment iterator
 * through a {@link StartGate}; see there for the phases. This class is the adapter: it reads the
 * scheduler's facts about each application ({@code isWaitingForAMContainer}, live non-AM
 * containers, pending demand, tags) and never holds the gate's monitor while doing so. Phases are
 * derived from live containers each time an iterator is built, so applications recovered after a
 * ResourceManager restart, whose containers come back without allocation events, are Running as
 * soon as they hold an executor.
 *
 * <p>Telling the AM container apart: when the queue reports an allocation, the container's
 * {@code isAMContainer()} is still false (the RMAppAttempt sets it later, on its own dispatcher
 * thread), so the container allocated while the attempt {@code isWaitingForAMContainer()} is
 * recorded as its AM. Recovered AM containers come back with {@code isAMContainer()} already set.
 * Attempt locks are never taken here, since CapacityScheduler calls in under its queue lock.
 *
 * <p>Threading: CapacityScheduler calls in under its queue lock, possibly from several threads;
 * the gate is synchronized, the entity set is FIFO's concurrent set.
 */
public class DripFeedOrderingPolicy extends FifoOrderingPolicy<FiCaSchedulerApp> {

  private static final Logger LOG = LoggerFactory.getLogger(DripFeedOrderingPolicy.class);

  /** The value {@link #getConfigName()} reports: this class, as it is configured. */
  public static final String CONFIG_NAME = DripFeedOrderingPolicy.class.getName();

  private final Clock clock;
  private volatile StartGate gate;
  /** The AM container of each attempt, as seen in {@link #containerAllocated}. */
  private final Map<ApplicationAttemptId, ContainerId> amContainers = new ConcurrentHashMap<>();

  /** Used by CapacityScheduler, which loads the policy by class name. */
  public DripFeedOrderingPolicy() {
    this(Clock.system());
  }

  DripFeedOrderingPolicy(Clock clock) {
    this.clock = clock;
    this.gate = new StartGate(QueuePolicySettings.defaults(), clock);
  }

  @Override
  public void configure(Map<String, String> properties) {
    super.configure(properties);
    QueuePolicySettings settings = QueuePolicySettings.fromProperties(properties);
    Set<String> unknown = QueuePolicySettings.unknownKeys(properties);
    if (!unknown.isEmpty()) {
      LOG.warn("Ignoring unknown ordering-policy settings {} (known: {}, {}, {})", unknown,
          QueuePolicySettings.STARTING_TIMEOUT_KEY, QueuePolicySettings.MAX_STARTING_KEY,
          QueuePolicySettings.SKIP_TAG_KEY);
    }
    // configure() runs once, right after construction and before any application is added.
    gate = new StartGate(settings, clock);
    LOG.info("Drip-feed ordering policy configured: {}", settings);
  }

  /** The gate, for tests in this package. */
  StartGate gate() {
    return gate;
  }

  @Override
  public void addSchedulableEntity(FiCaSchedulerApp app) {
    super.addSchedulableEntity(app);
    track(app);
  }

  @Override
  public void addAllSchedulableEntities(Collection<FiCaSchedulerApp> apps) {
    // A queue refresh builds a new policy and hands it the old one's applications here.
    super.addAllSchedulableEntities(apps);
    for (FiCaSchedulerApp app : apps) {
      track(app);
    }
  }

  @Override
  public boolean removeSchedulableEntity(FiCaSchedulerApp app) {
    boolean removed = super.removeSchedulableEntity(app);
    amContainers.remove(app.getApplicationAttemptId());
    gate.forget(idOf(app));
    return removed;
  }

  @Override
  public void containerAllocated(FiCaSchedulerApp app, RMContainer container) {
    super.containerAllocated(app, container);
    if (container.isAMContainer() || app.isWaitingForAMContainer()) {
      amContainers.put(app.getApplicationAttemptId(), container.getContainerId());
      gate.amAllocated(idOf(app));
    } else {
      gate.executorAllocated(idOf(app));
    }
  }

  @Override
  public Iterator<FiCaSchedulerApp> getAssignmentIterator(IteratorSelector selector) {
    StartGate current = gate;
    String partition = selector == null || selector.getPartition() == null
        ? "" : selector.getPartition();
    List<Candidate> fifoOrder = new ArrayList<>();
    Iterator<FiCaSchedulerApp> fifo = super.getAssignmentIterator(selector);
    while (fifo.hasNext()) {
      FiCaSchedulerApp app = fifo.next();
      fifoOrder.add(new Candidate(app, observe(current, app, partition,
          amContainers.get(app.getApplicationAttemptId()))));
    }
    List<Candidate> admitted = current.admit(fifoOrder, Candidate::facts);
    List<FiCaSchedulerApp> apps = new ArrayList<>(admitted.size());
    for (Candidate candidate : admitted) {
      apps.add(candidate.app());
    }
    return apps.iterator();
  }

  @Override
  public String getInfo() {
    return "DripFeedOrderingPolicy: " + gate.describe();
  }

  @Override
  public String getConfigName() {
    return CONFIG_NAME;
  }

  private void track(FiCaSchedulerApp app) {
    gate.track(idOf(app), hasSkipTag(app));
  }

  /**
   * Reads the scheduler's facts; called without holding the gate's monitor.
   *
   * @param amContainer the AM container recorded at allocation, or null (recovered or unmanaged)
   */
  private static AppObservation observe(
      StartGate gate, FiCaSchedulerApp app, String partition, ContainerId amContainer) {
    String id = idOf(app);
    if (gate.phase(id) == StartPhase.RUNNING) {
      return AppObservation.knownRunning(id); // sticky: skip the container scan
    }
    boolean amAllocated = !app.isWaitingForAMContainer();
    boolean executor = false;
    if (amAllocated) { // while it waits for its AM, any live container is that AM
      for (RMContainer container : app.getLiveContainers()) {
        if (!container.isAMContainer() && !container.getContainerId().equals(amContainer)) {
          executor = true;
          break;
        }
      }
    }
    return new AppObservation(id, amAllocated, executor,
        app.hasPendingResourceRequest(partition, SchedulingMode.RESPECT_PARTITION_EXCLUSIVITY));
  }

  private boolean hasSkipTag(FiCaSchedulerApp app) {
    QueuePolicySettings settings = gate.settings();
    if (!settings.skipTagEnabled()) {
      return false;
    }
    Set<String> tags = tagsOf(app);
    for (String tag : tags) {
      if (tag.trim().toLowerCase(Locale.ROOT).equals(settings.skipTag())) {
        return true;
      }
    }
    return false;
  }

  /** The application's tags from its RMApp; empty if the RM context does not know it. */
  private static Set<String> tagsOf(FiCaSchedulerApp app) {
    RMContext context = app.getAppSchedulingInfo() == null
        ? null : app.getAppSchedulingInfo().getRMContext();
    if (context == null || context.getRMApps() == null) {
      return Set.of();
    }
    ApplicationId appId = app.getApplicationId();
    RMApp rmApp = context.getRMApps().get(appId);
    if (rmApp == null || rmApp.getApplicationTags() == null) {
      return Set.of();
    }
    return rmApp.getApplicationTags();
  }

  private static String idOf(FiCaSchedulerApp app) {
    return app.getApplicationId().toString();
  }

  /** One schedulable application with what the scheduler showed of it. */
  private record Candidate(FiCaSchedulerApp app, AppObservation facts) {}
}
