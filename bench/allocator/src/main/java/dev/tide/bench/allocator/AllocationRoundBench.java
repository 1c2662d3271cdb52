package dev.tide.bench.allocator;

import dev.tide.am.allocation.ContainerPlacement;
import dev.tide.am.allocation.LocalityPlacement;
import dev.tide.am.allocation.RackCache;
import dev.tide.am.yarn.ContainerRequestReconciler;
import dev.tide.am.yarn.ExecutorRequests.Demand;
import dev.tide.am.yarn.ExecutorRequests.RequestDelta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.util.RackResolver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One allocation round of the AM's allocator thread, minus the allocate RPC: building the
 * {@link Demand} and {@link ContainerRequestReconciler#reconcile} (stale-request cancellation,
 * {@link LocalityPlacement}, add/remove on the real request table of an unstarted
 * {@code AMRMClient.createAMRMClient()}, racks through a {@link RackCache} over YARN's
 * {@code RackResolver} with a static {@link FixedRacks} mapping).
 *
 * <p>Note that the AMRM client resolves the racks of every host of every request itself
 * ({@code AMRMClientImpl.resolveRacks} through {@code RackResolver}, whose
 * {@code CachedDNSToSwitchMapping} normalizes each name with {@code InetAddress.getByName}
 * before its cache), hence the {@code names} parameter.
 *
 * <p>Workload: {@code hosts} hosts on racks of 40, {@code tasks} pending map tasks that each
 * prefer 3 distinct random hosts (HDFS replicas), 4 tasks per executor, target
 * {@code tasks / 4} executors, none running yet.
 *
 * <ul>
 *   <li>{@code coldRound}: the first round against an empty request table.
 *   <li>{@code changedHintsRound}: the table holds what the previous round asked for; 1% of the
 *       tasks finished and 1% of new ones arrived (so some hosts drop out of the hints and some
 *       gain; with these numbers no host drops out entirely, so nothing is stale and the round
 *       swaps one any-host request for one local one).
 *   <li>{@code hostsDroppedRound}: the table as above; 1% of the hosts (every 100th, 50) lose
 *       all their pending tasks. A request is stale when at least half of the hosts it names
 *       lost theirs, so these scattered hosts leave the requests naming them in place.
 *   <li>{@code rackDroppedRound}: the table as above; 1% of the hosts, consecutive in rack
 *       order (the first 50: one rack and a quarter), lose all their pending tasks, so the
 *       requests naming them are stale: cancelled and placed again.
 *   <li>{@code unchangedHintsRound}: the steady state, same hints as the table was built for.
 *   <li>{@code placementOnly}: {@link LocalityPlacement#place} alone, for the cold input.
 *   <li>{@code requestTableOnly}: the cold round's requests, built beforehand, added to an
 *       empty AMRM request table (YARN's client bookkeeping alone).
 * </ul>
 *
 * <p>Every round runs against YARN's request table ({@code table=yarn}) and against a plain
 * list ({@code table=none}): the second is Tide's own share of the round.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AllocationRoundBench {
  @Param("5000")
  public int hosts;

  @Param("10000")
  public int tasks;

  /**
   * {@code resolvable}: {@code hostNNNNN.example.com}, listed in the hosts file run.sh passes
   * as {@code -Djdk.net.hosts.file} (a cluster whose DNS works; lookups hit the JVM's cache).
   * {@code unresolvable}: {@code hostNNNNN.unresolvable.invalid}, which no lookup finds.
   */
  @Param({"resolvable", "unresolvable"})
  public String names;

  private static final int TASKS_PER_EXECUTOR = 4;
  private static final int REPLICAS = 3;

  private final Resource resource = Resource.newInstance(2048, TASKS_PER_EXECUTOR);
  private final Priority priority = Priority.newInstance(1);

  private String[] hostNames;
  Map<String, Integer> hints;
  Map<String, Integer> changedHints;
  Map<String, Integer> droppedHints;
  int droppedTasks;
  Map<String, Integer> rackDroppedHints;
  int rackDroppedTasks;
  private int target;
  private RackCache racks;

  @Setup(Level.Trial)
  public void workload() {
    hostNames = new String[hosts];
    for (int i = 0; i < hosts; i++) {
      hostNames[i] = String.format(names.equals("resolvable") ? "host%05d.example.com"
          : "host%05d.unresolvable.invalid", i);
    }
    SplittableRandom random = new SplittableRandom(42);
    int[][] prefs = new int[tasks][];
    for (int t = 0; t < tasks; t++) {
      prefs[t] = replicas(random);
    }
    hints = count(prefs, 0, tasks, null);
    // 1% of the tasks done (the first ones), 1% new ones with fresh preferences.
    int done = tasks / 100;
    int[][] fresh = new int[done][];
    for (int t = 0; t < done; t++) {
      fresh[t] = replicas(random);
    }
    changedHints = count(prefs, done, tasks, fresh);
    // 1% of the hosts (every 100th) no longer preferred by any pending task.
    droppedHints = new HashMap<>(hints);
    droppedTasks = tasks;
    for (int h = 0; h < hosts; h += 100) {
      Integer n = droppedHints.remove(hostNames[h]);
      droppedTasks -= n == null ? 0 : n / REPLICAS;
    }
    // 1% of the hosts, the first ones (consecutive on their racks), no longer preferred.
    rackDroppedHints = new HashMap<>(hints);
    rackDroppedTasks = tasks;
    for (int h = 0; h < hosts / 100; h++) {
      Integer n = rackDroppedHints.remove(hostNames[h]);
      rackDroppedTasks -= n == null ? 0 : n / REPLICAS;
    }
    target = tasks / TASKS_PER_EXECUTOR;
    Configuration conf = new Configuration(false);
    conf.setClass(CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY,
        FixedRacks.class, DNSToSwitchMapping.class);
    RackResolver.init(conf);
    // As the AM does: its own cache in front of YARN's RackResolver.
    racks = new RackCache(h -> RackResolver.resolve(conf, h).getNetworkLocation());
  }

  private int[] replicas(SplittableRandom random) {
    int[] r = new int[REPLICAS];
    for (int k = 0; k < REPLICAS; k++) {
      int h;
      do {
        h = random.nextInt(hosts);
      } while (k > 0 && (h == r[0] || (k > 1 && h == r[1])));
      r[k] = h;
    }
    return r;
  }

  private Map<String, Integer> count(int[][] prefs, int from, int to, int[][] extra) {
    Map<String, Integer> m = new HashMap<>();
    for (int t = from; t < to; t++) {
      for (int h : prefs[t]) {
        m.merge(hostNames[h], 1, Integer::sum);
      }
    }
    if (extra != null) {
      for (int[] p : extra) {
        for (int h : p) {
          m.merge(hostNames[h], 1, Integer::sum);
        }
      }
    }
    return m;
  }

  /**
   * A request table and the reconciler over it. {@code table}: {@code yarn}, YARN's real one
   * (an unstarted AMRM client), the whole round as the AM runs it; {@code none}, a plain list
   * ({@link PlainRequestList}), so that only Tide's own work is measured: the demand, stale
   * requests, placement and the requests' construction.
   */
  public static class Table {
    @Param({"yarn", "none"})
    public String table;

    ContainerRequestReconciler reconciler;

    void fresh(AllocationRoundBench b) {
      AMRMClient<ContainerRequest> amrm = table == null || table.equals("yarn")
          ? AMRMClient.createAMRMClient() : new PlainRequestList();
      reconciler = new ContainerRequestReconciler(amrm, b.resource, b.priority,
          new LocalityPlacement(b.racks), TASKS_PER_EXECUTOR, b.racks);
    }

    RequestDelta round(AllocationRoundBench b, Map<String, Integer> hostToLocalTaskCount) {
      return round(b, hostToLocalTaskCount, b.tasks);
    }

    RequestDelta round(AllocationRoundBench b, Map<String, Integer> hostToLocalTaskCount,
        int localityAware) {
      return reconciler.reconcile(new Demand(b.target, 0, 0, localityAware,
          hostToLocalTaskCount, Map.of()));
    }
  }

  /** Cold: a new, empty request table before every call. */
  @State(Scope.Thread)
  public static class Cold extends Table {
    @Setup(Level.Invocation)
    public void reset(AllocationRoundBench b) {
      fresh(b);
    }
  }

  /** Warm: a table populated by a round with the original hints before every call. */
  @State(Scope.Thread)
  public static class Populated extends Table {
    @Setup(Level.Invocation)
    public void reset(AllocationRoundBench b) {
      fresh(b);
      round(b, b.hints);
    }
  }

  @Benchmark
  public RequestDelta coldRound(Cold table) {
    return table.round(this, hints);
  }

  @Benchmark
  public RequestDelta changedHintsRound(Populated table) {
    return table.round(this, changedHints);
  }

  @Benchmark
  public RequestDelta hostsDroppedRound(Populated table) {
    return table.round(this, droppedHints, droppedTasks);
  }

  @Benchmark
  public RequestDelta rackDroppedRound(Populated table) {
    return table.round(this, rackDroppedHints, rackDroppedTasks);
  }

  @Benchmark
  public RequestDelta unchangedHintsRound(Populated table) {
    return table.round(this, hints);
  }

  /**
   * The cold round's own requests (as placement makes them, built beforehand) added to an empty
   * AMRM request table: the part of a cold round that is YARN's client bookkeeping alone.
   */
  @State(Scope.Thread)
  public static class ColdRequests {
    List<ContainerRequest> requests;
    AMRMClient<ContainerRequest> amrm;

    @Setup(Level.Trial)
    public void build(AllocationRoundBench b) {
      requests = new java.util.ArrayList<>();
      for (List<String> hosts : new LocalityPlacement(b.racks).place(new ContainerPlacement
          .Input(b.target, b.target, TASKS_PER_EXECUTOR, b.tasks, b.hints, Map.of()))) {
        if (hosts.isEmpty()) {
          requests.add(new ContainerRequest(b.resource, null, null, b.priority, true));
        } else {
          String[] racks = hosts.stream().map(b.racks).distinct().toArray(String[]::new);
          requests.add(new ContainerRequest(b.resource, hosts.toArray(new String[0]), racks,
              b.priority, true));
        }
      }
    }

    @Setup(Level.Invocation)
    public void emptyTable() {
      amrm = AMRMClient.createAMRMClient();
    }
  }

  @Benchmark
  public AMRMClient<ContainerRequest> requestTableOnly(ColdRequests cold) {
    for (ContainerRequest request : cold.requests) {
      cold.amrm.addContainerRequest(request);
    }
    return cold.amrm;
  }

  @Benchmark
  public List<List<String>> placementOnly() {
    return new LocalityPlacement(racks).place(new ContainerPlacement.Input(target, target,
        TASKS_PER_EXECUTOR, tasks, hints, Map.of()));
  }

  /** Prints what one round asks for, as a sanity check: {@code java ... AllocationRoundBench}. */
  public static void main(String[] args) {
    AllocationRoundBench b = new AllocationRoundBench();
    b.hosts = 5000;
    b.tasks = 10000;
    b.names = args.length > 0 ? args[0] : "resolvable";
    b.workload();
    Table t = new Table();
    t.fresh(b);
    System.out.println("hosts with hints " + b.hints.size() + ", target " + b.target);
    System.out.println("cold:    " + t.round(b, b.hints) + ", table "
        + t.reconciler.pendingRequests());
    System.out.println("changed: " + t.round(b, b.changedHints) + ", table "
        + t.reconciler.pendingRequests());
    System.out.println("same:    " + t.round(b, b.changedHints) + ", table "
        + t.reconciler.pendingRequests());
    t.fresh(b);
    t.round(b, b.hints);
    System.out.println("dropped: " + t.round(b, b.droppedHints, b.droppedTasks) + ", table "
        + t.reconciler.pendingRequests());
    t.fresh(b);
    t.round(b, b.hints);
    System.out.println("rack dropped: " + t.round(b, b.rackDroppedHints, b.rackDroppedTasks)
        + ", table " + t.reconciler.pendingRequests());
  }
}
