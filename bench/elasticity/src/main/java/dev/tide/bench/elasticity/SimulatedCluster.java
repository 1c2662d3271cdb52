package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.ExecutorAllocationClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A YARN queue and the AM allocator in one, as the policy sees them through
 * {@link ExecutorAllocationClient}: on each heartbeat it grants containers for the missing
 * executors ({@code target - allocated}) up to the queue's capacity; a granted container becomes
 * a registered executor after a start latency. A killed executor's container is released at
 * once. Lowering the target cancels only requests not yet granted (running and starting
 * containers stay). Headroom = capacity - allocated.
 *
 * <p>The allocator's request table is counted as the real one would change: whenever the
 * target changes (the allocator is woken at once) and on each heartbeat, the ungranted requests
 * are brought to {@code max(0, target - allocated)}; what is added counts as requests, what is
 * withdrawn as cancels. Counting does not change when or how many containers are granted.
 *
 * <p>Single-threaded, driven by {@link Simulation}; times in simulated milliseconds. Every
 * container's grant and release times are kept for the executor-seconds account.
 */
final class SimulatedCluster implements ExecutorAllocationClient {
  /** A container from grant to release. */
  static final class Container {
    final String executorId;
    final long grantedAtMillis;
    long readyAtMillis = -1;
    long releasedAtMillis = -1;

    Container(String executorId, long grantedAtMillis) {
      this.executorId = executorId;
      this.grantedAtMillis = grantedAtMillis;
    }
  }

  /** Receives executors whose container has started. */
  interface Launches {
    void containerStarted(Container container, long readyAtMillis);
  }

  private final int capacity;
  private final long startLatencyMillis;
  private final long startJitterMillis;
  private final Random random;
  private final Map<String, Container> live = new HashMap<>();
  private final List<Container> all = new ArrayList<>();
  private int target;
  private int nextId = 1;
  private int targetChanges;
  private int killed;
  /** Requests asked for and not granted yet. */
  private int pendingRequests;
  private int requested;
  private int cancelled;
  private long nowMillis;

  /**
   * @param startLatencyMillis mean time from grant to a registered executor
   * @param startJitterMillis the latency varies uniformly by +- this
   */
  SimulatedCluster(int capacity, long startLatencyMillis, long startJitterMillis, long seed) {
    this.capacity = capacity;
    this.startLatencyMillis = startLatencyMillis;
    this.startJitterMillis = startJitterMillis;
    this.random = new Random(seed);
  }

  void setNow(long nowMillis) {
    this.nowMillis = nowMillis;
  }

  @Override
  public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount) {
    if (targetExecutors != target) {
      targetChanges++;
    }
    target = targetExecutors;
    reconcileRequests();
  }

  /** Adds or withdraws ungranted requests so that pending + allocated = target. */
  private void reconcileRequests() {
    int wanted = Math.max(0, target - live.size());
    if (wanted > pendingRequests) {
      requested += wanted - pendingRequests;
    } else {
      cancelled += pendingRequests - wanted;
    }
    pendingRequests = wanted;
  }

  @Override
  public void killExecutors(Collection<String> executorIds) {
    for (String id : executorIds) {
      Container c = live.remove(id);
      if (c != null) {
        c.releasedAtMillis = nowMillis;
        killed++;
      }
    }
  }

  @Override
  public int grantableExecutors() {
    return Math.max(0, capacity - live.size());
  }

  /** One allocate round: grants what is missing and fits; reports each start to {@code to}. */
  void heartbeat(Launches to) {
    reconcileRequests();
    int missing = Math.min(pendingRequests, capacity - live.size());
    for (int i = 0; i < missing; i++) {
      pendingRequests--;
      Container c = new Container("e" + nextId++, nowMillis);
      live.put(c.executorId, c);
      all.add(c);
      long jitter = startJitterMillis == 0 ? 0
          : (long) ((random.nextDouble() * 2 - 1) * startJitterMillis);
      c.readyAtMillis = nowMillis + startLatencyMillis + jitter;
      to.containerStarted(c, c.readyAtMillis);
    }
  }

  /** Container-milliseconds from grant to release, or to {@code endMillis} if still held. */
  long executorMillis(long endMillis) {
    long sum = 0;
    for (Container c : all) {
      long end = c.releasedAtMillis < 0 ? endMillis : Math.min(c.releasedAtMillis, endMillis);
      sum += Math.max(0, end - c.grantedAtMillis);
    }
    return sum;
  }

  int targetChanges() {
    return targetChanges;
  }

  int killed() {
    return killed;
  }

  /** Containers granted and not released (starting or running executors). */
  int allocated() {
    return live.size();
  }

  /** Container requests added to the request table. */
  int requested() {
    return requested;
  }

  /** Ungranted requests withdrawn because the target dropped. */
  int cancelled() {
    return cancelled;
  }

  int containersGranted() {
    return all.size();
  }

  /** Every container granted in the run, released or not. */
  List<Container> containers() {
    return List.copyOf(all);
  }
}
