package dev.tide.am.yarn;

import dev.tide.driver.events.EventName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's containers, each from its allocation to its completion. A container with an
 * executor is {@link State#STARTING} (handed to a launcher), {@link State#RUNNING} (its
 * NodeManager started it) or {@link State#RELEASING} (released by the AM, its completion not
 * reported yet); a container released without an executor (surplus) is only remembered as
 * released. Every release goes through here, so a completion always knows whether the AM
 * released the container.
 *
 * <p>Not thread-safe: the allocator thread only.
 */
final class ExecutorContainers {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorContainers.class);

  enum State { STARTING, RUNNING, RELEASING }

  /** An executor's container. */
  static final class Executor {
    final String id;
    final Container container;
    State state = State.STARTING;
    /** The driver heard of its launch, so it must hear of its exit. */
    boolean reportedToDriver;
    /** Seen registered with the driver (the launch watchdog stops asking). */
    boolean registered;
    /** When the AM received its container (the allocator's clock). */
    long allocatedAtMillis;
    long launchedAtMillis;

    Executor(String id, Container container) {
      this.id = id;
      this.container = container;
    }

    String host() {
      return container.getNodeId().getHost();
    }
  }

  /**
   * A completed container.
   *
   * @param executor its executor, or null for a container without one (surplus, unknown)
   * @param released whether the AM released it
   */
  record Completion(Executor executor, boolean released) {}

  private final AMRMClient<ContainerRequest> amrmClient;
  private final NodeExclusions.EventSink events;
  private final Map<ContainerId, Executor> byContainer = new LinkedHashMap<>();
  private final Map<String, Executor> byExecutor = new HashMap<>();
  /** Released containers whose completion has not arrived yet, with or without an executor. */
  private final Set<ContainerId> released = new HashSet<>();
  private int nextExecutorId = 1;
  private int peakLive;
  private int releasedSinceTaken;

  ExecutorContainers(AMRMClient<ContainerRequest> amrmClient, NodeExclusions.EventSink events) {
    this.amrmClient = amrmClient;
    this.events = events;
  }

  /** A new executor, {@link State#STARTING}, in {@code container}; its id counts from 1. */
  Executor add(Container container) {
    Executor executor = new Executor(Integer.toString(nextExecutorId++), container);
    byContainer.put(container.getId(), executor);
    byExecutor.put(executor.id, executor);
    peakLive = Math.max(peakLive, live());
    return executor;
  }

  /** The executor in this container, or null when none is (or no longer). */
  Executor inContainer(ContainerId id) {
    return byContainer.get(id);
  }

  /** The executor of this id, or null when it has completed or never existed. */
  Executor byId(String executorId) {
    return byExecutor.get(executorId);
  }

  /** Releases the executor's container; it is {@link State#RELEASING} from now on. */
  void release(Executor executor, String reason) {
    release(executor.container, reason);
    executor.state = State.RELEASING;
  }

  /** Releases a container (with no executor, or through {@link #release(Executor, String)}). */
  void release(Container container, String reason) {
    amrmClient.releaseAssignedContainer(container.getId());
    released.add(container.getId());
    releasedSinceTaken++;
    LOG.debug("Releasing container {} on {}: {}", container.getId(), container.getNodeId(),
        reason);
    events.logEvent(EventName.CONTAINER_RELEASED, "container", container.getId().toString(), "host",
        container.getNodeId().getHost(), "reason", reason);
  }

  /** Forgets a completed container. */
  Completion complete(ContainerId id) {
    Executor executor = byContainer.remove(id);
    boolean wasReleased = released.remove(id)
        || (executor != null && executor.state == State.RELEASING);
    if (executor != null) {
      byExecutor.remove(executor.id);
    }
    return new Completion(executor, wasReleased);
  }

  int count(State state) {
    int n = 0;
    for (Executor executor : byContainer.values()) {
      if (executor.state == state) {
        n++;
      }
    }
    return n;
  }

  /** Executors starting or running. */
  int live() {
    return byContainer.size() - count(State.RELEASING);
  }

  /** The most executors starting or running at once so far. */
  int peakLive() {
    return peakLive;
  }

  /** Containers released since the last call (for the round's log line). */
  int takeReleasedCount() {
    int n = releasedSinceTaken;
    releasedSinceTaken = 0;
    return n;
  }

  /** Running executors not yet seen registered, oldest first (for the launch watchdog). */
  List<Executor> runningUnregistered() {
    List<Executor> found = new ArrayList<>();
    for (Executor executor : byContainer.values()) {
      if (executor.state == State.RUNNING && !executor.registered) {
        found.add(executor);
      }
    }
    return found;
  }

  /** Executors starting or running, as a copy. */
  List<Executor> held() {
    List<Executor> held = new ArrayList<>();
    for (Executor executor : byContainer.values()) {
      if (executor.state != State.RELEASING) {
        held.add(executor);
      }
    }
    return held;
  }

  /** Every executor whose container has not completed (releasing ones too), as a copy. */
  List<Executor> all() {
    return new ArrayList<>(byContainer.values());
  }

  /** Starting and running executors per node, under both node name and host. */
  Map<String, Integer> perNode() {
    Map<String, Integer> perNode = new HashMap<>();
    for (Executor executor : byContainer.values()) {
      if (executor.state == State.RELEASING) {
        continue;
      }
      NodeId node = executor.container.getNodeId();
      perNode.merge(node.getHost(), 1, Integer::sum);
      String name = node.toString();
      if (!name.equals(node.getHost())) {
        perNode.merge(name, 1, Integer::sum);
      }
    }
    return perNode;
  }
}
