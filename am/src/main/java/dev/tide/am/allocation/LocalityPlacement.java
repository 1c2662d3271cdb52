package dev.tide.am.allocation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Placement {@code locality} (DESIGN.md "Placement"): containers go to hosts in proportion to the
 * pending tasks that prefer each host.
 *
 * <p>The locality-aware tasks need {@code ceil(localityAwareTasks / tasksPerExecutor)}
 * executors (at most the target). A host is expected to hold
 * {@code ceil(hostLocalTasks x thoseExecutors / the sum of all hosts' local tasks)} of them,
 * minus what is already allocated or requested there. The divisor is Spark's: a task with
 * replicated input counts on each host that has a replica, and dividing by the sum makes the
 * expectations add up to the executors needed rather than a multiple of them (with 3 replicas,
 * three times as many host shares to ask YARN for). Requests are built in layers: the first layer covers
 * every host that lacks containers, the next those that lack two or more, and so on, so each
 * host is named by as many requests as it lacks containers. A layer is split into requests of
 * consecutive hosts (in rack order, so a request stays within few racks): each request names at
 * least {@value #MIN_HOSTS_PER_REQUEST} hosts, or more when there are few requests to place,
 * so that together they still name every lacking host. Small requests let many containers be
 * placed locally (each allocation removes one request, and with it one share of each host it
 * names), and when a host drops out of the hints only the few requests naming it can go stale
 * (see {@link #isStale}).
 * What is left once no host lacks containers is requested for any host.
 */
public final class LocalityPlacement implements ContainerPlacement {
  /** Fewest hosts a locality request names (unless fewer lack containers). */
  static final int MIN_HOSTS_PER_REQUEST = 8;

  private final Function<String, String> rackOf;

  /** Hosts ordered by name only. */
  public LocalityPlacement() {
    this(host -> null);
  }

  /** @param rackOf the rack of a host, or null when unknown (see {@link RackCache}) */
  public LocalityPlacement(Function<String, String> rackOf) {
    this.rackOf = rackOf;
  }

  @Override
  public List<List<String>> place(Input input) {
    int wanted = input.newRequests();
    List<List<String>> requests = new ArrayList<>(wanted);
    Map<String, Integer> lacking = lackingPerHost(input);
    if (!lacking.isEmpty() && wanted > 0) {
      List<String> hosts = inRackOrder(lacking.keySet());
      int[] left = new int[hosts.size()];
      long shares = 0;
      for (int i = 0; i < left.length; i++) {
        left[i] = lacking.get(hosts.get(i));
        shares += left[i];
      }
      int perRequest = (int) Math.max(MIN_HOSTS_PER_REQUEST, (shares + wanted - 1) / wanted);
      while (requests.size() < wanted) {
        List<String> layer = new ArrayList<>();
        for (int i = 0; i < left.length; i++) {
          if (left[i] > 0) {
            layer.add(hosts.get(i));
            left[i]--;
          }
        }
        if (layer.isEmpty()) {
          break;
        }
        split(layer, perRequest, wanted, requests);
      }
    }
    while (requests.size() < wanted) {
      requests.add(List.of());
    }
    return requests;
  }

  /** Splits a layer into near-equal runs of at least {@code perRequest} hosts. */
  private static void split(List<String> layer, int perRequest, int wanted,
      List<List<String>> requests) {
    int parts = Math.max(1, layer.size() / perRequest);
    for (int p = 0; p < parts && requests.size() < wanted; p++) {
      int from = (int) ((long) layer.size() * p / parts);
      int to = (int) ((long) layer.size() * (p + 1) / parts);
      requests.add(List.copyOf(layer.subList(from, to)));
    }
  }

  private List<String> inRackOrder(Collection<String> hosts) {
    // One sort key per host ("rack NUL host"), so the sort compares plain strings.
    String[][] keyed = new String[hosts.size()][];
    int i = 0;
    for (String host : hosts) {
      String rack = rackOf.apply(host);
      keyed[i++] = new String[] {(rack == null ? "" : rack) + '\0' + host, host};
    }
    Arrays.sort(keyed, Comparator.comparing((String[] k) -> k[0]));
    List<String> ordered = new ArrayList<>(keyed.length);
    for (String[] k : keyed) {
      ordered.add(k[1]);
    }
    return ordered;
  }

  /** Expected minus existing containers for each host that prefers any. */
  static Map<String, Integer> lackingPerHost(Input input) {
    Map<String, Integer> lacking = new HashMap<>();
    if (input.localityAwareTasks() <= 0 || input.hostToLocalTaskCount().isEmpty()) {
      return lacking;
    }
    int tasksPerExecutor = Math.max(1, input.tasksPerExecutor());
    int executorsForLocalTasks = Math.min(input.targetExecutors(),
        (input.localityAwareTasks() + tasksPerExecutor - 1) / tasksPerExecutor);
    long localTaskSum = 0;
    for (int count : input.hostToLocalTaskCount().values()) {
      localTaskSum += localTasks(count, input);
    }
    for (Map.Entry<String, Integer> e : input.hostToLocalTaskCount().entrySet()) {
      int localTasks = localTasks(e.getValue(), input);
      if (localTasks <= 0) {
        continue;
      }
      int expected = (int) Math.ceil((double) localTasks * executorsForLocalTasks / localTaskSum);
      int existing = input.containersPerHost().getOrDefault(e.getKey(), 0);
      if (expected > existing) {
        lacking.put(e.getKey(), expected - existing);
      }
    }
    return lacking;
  }

  /** A host's pending local tasks, at most all locality-aware tasks. */
  private static int localTasks(int count, Input input) {
    return Math.max(0, Math.min(count, input.localityAwareTasks()));
  }

  /**
   * Stale when at least half of the hosts a request names no longer have a pending local task.
   * A request that still names mostly preferred hosts is kept: re-placing it would withdraw and
   * re-send every host it names to the RM for a container that would most likely be placed on
   * one of them anyway (Spark keeps a request while any of its hosts is preferred).
   */
  @Override
  public boolean isStale(List<String> requestHosts, Map<String, Integer> hostToLocalTaskCount) {
    int unpreferred = 0;
    for (String host : requestHosts) {
      if (hostToLocalTaskCount.getOrDefault(host, 0) <= 0) {
        unpreferred++;
      }
    }
    return unpreferred > 0 && 2 * unpreferred >= requestHosts.size();
  }
}
