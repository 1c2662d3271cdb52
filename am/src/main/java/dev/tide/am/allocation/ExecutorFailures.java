package dev.tide.am.allocation;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Executor failures within a validity window, in total and per node, and the nodes excluded for
 * repeated failures (DESIGN.md "Container outcome").
 *
 * <p>A failure counts for {@code validity} ({@code tide.executor.failuresValidityInterval}); the
 * application should fail once more than {@code maxFailures} count at the same time (the limit
 * is read at each failure, since by default it grows with the executors: see
 * {@link MaxExecutorFailures}). Only failures in a row count towards that limit: each failure
 * comes with the application's progress (tasks succeeded so far), and a failure after progress
 * forgives the failures before it. Executors killed now and then on a cluster where tasks still
 * get done (a node's OOM killer, an operator, a chaos test) do not end a job that succeeds on
 * retry; executors that keep failing while no task succeeds (a bad option, too little memory,
 * a task that brings its executor down once nothing else runs) still end it after a bounded
 * number. The failures against a node are counted as before, progress or not.
 *
 * <p>A failure may be recorded against its node or not (a container that exceeded its memory
 * failed because of the job's settings, not its node's). A node with
 * {@code maxFailuresPerNode} failures against it is excluded for {@code exclusionTimeout}, then
 * allowed again (its old failures no longer count towards a new exclusion).
 *
 * <p>Exclusion never leaves the application without a node: when every node it could use is
 * excluded, {@link #liftOldestIfAllExcluded} ends the exclusion that would end soonest and
 * forgives that node's failures so far. (Spark fails the application instead, SPARK-16630; a
 * Tide executor's shuffle output outlives it in the NodeManager, so going on loses nothing, and
 * {@code maxFailures} still bounds how often executors may fail.)
 *
 * <p>Time comes from the injected clock (milliseconds). Not thread-safe: allocator thread only.
 */
public final class ExecutorFailures {
  /**
   * What one failure changed.
   *
   * @param recentFailures failures within the validity with no progress between them
   * @param maxFailures the limit in force when it was recorded
   * @param perNode failures against each node (those not against a node are only in
   *     {@code recentFailures})
   */
  public record Verdict(boolean tooMany, int recentFailures, int maxFailures,
      Map<String, Integer> perNode, boolean nodeExcluded) {}

  /**
   * @param node the node it counts against, or null
   * @param sequence counts failures from 1, so that forgiving needs no clock resolution
   */
  private record Failure(long atMillis, String node, long sequence) {}

  private final IntSupplier maxFailures;
  private final long validityMillis;
  private final int maxFailuresPerNode;
  private final long exclusionMillis;
  private final LongSupplier clock;
  private final Deque<Failure> recent = new ArrayDeque<>();
  /** Excluded node -> when it may be used again. */
  private final Map<String, Long> excludedUntil = new LinkedHashMap<>();
  /** Node -> the last failure there (by sequence) that no longer counts towards excluding it. */
  private final Map<String, Long> forgivenThrough = new LinkedHashMap<>();
  private long failuresRecorded;
  /** The progress at the last failure, and the last failure (by sequence) it forgave. */
  private long lastProgress;
  private long forgivenForLimitThrough;

  public ExecutorFailures(int maxFailures, Duration validity, int maxFailuresPerNode,
      Duration exclusionTimeout, LongSupplier clockMillis) {
    this(() -> maxFailures, validity, maxFailuresPerNode, exclusionTimeout, clockMillis);
  }

  /** @param maxFailures the limit now; read at every failure recorded */
  public ExecutorFailures(IntSupplier maxFailures, Duration validity, int maxFailuresPerNode,
      Duration exclusionTimeout, LongSupplier clockMillis) {
    this.maxFailures = maxFailures;
    this.validityMillis = validity.toMillis();
    this.maxFailuresPerNode = maxFailuresPerNode;
    this.exclusionMillis = exclusionTimeout.toMillis();
    this.clock = clockMillis;
  }

  /** Counts one executor failure against {@code node}, with no progress since the last. */
  public Verdict record(String node) {
    return record(node, true, lastProgress);
  }

  /** As {@link #record(String, boolean, long)} with no progress since the last failure. */
  public Verdict record(String node, boolean againstNode) {
    return record(node, againstNode, lastProgress);
  }

  /**
   * Counts one executor failure on {@code node}; only with {@code againstNode} does it count
   * towards excluding that node. {@code progress} (tasks succeeded so far) above the last
   * failure's forgives the failures before this one as far as the limit is concerned.
   */
  public Verdict record(String node, boolean againstNode, long progress) {
    long now = clock.getAsLong();
    expire(now);
    if (progress > lastProgress) {
      lastProgress = progress;
      forgivenForLimitThrough = failuresRecorded;
    }
    String blamed = againstNode ? node : null;
    recent.addLast(new Failure(now, blamed, ++failuresRecorded));
    Map<String, Integer> perNode = perNode();
    boolean excluded = false;
    if (blamed != null && maxFailuresPerNode > 0 && !excludedUntil.containsKey(blamed)
        && countingTowardsExclusion(blamed) >= maxFailuresPerNode) {
      excludedUntil.put(blamed, now + exclusionMillis);
      excluded = true;
    }
    int limit = maxFailures.getAsInt();
    int inARow = failuresInARow();
    return new Verdict(inARow > limit, inARow, limit, perNode, excluded);
  }

  /** Nodes whose exclusion has ended; they are no longer excluded after this call. */
  public List<String> endExpiredExclusions() {
    long now = clock.getAsLong();
    List<String> ended = new ArrayList<>();
    for (Iterator<Map.Entry<String, Long>> it = excludedUntil.entrySet().iterator();
        it.hasNext();) {
      Map.Entry<String, Long> e = it.next();
      if (now >= e.getValue()) {
        ended.add(e.getKey());
        forgivenThrough.put(e.getKey(), failuresRecorded);
        it.remove();
      }
    }
    return ended;
  }

  /**
   * Lifts one exclusion when every node the application could use is excluded: the one that
   * would end soonest, which with one timeout for all is the oldest. Its failures so far are
   * forgiven, so the next failure there does not exclude it again at once.
   *
   * @param clusterNodes nodes the RM can place containers on now; 0 when not known yet, and
   *     then nothing is lifted
   * @param unusableNodes nodes the RM reports lost, unhealthy, decommissioned or shut down;
   *     their exclusions do not count, as they are not among {@code clusterNodes}
   * @return the node that may take executors again, if an exclusion was lifted
   */
  public Optional<String> liftOldestIfAllExcluded(int clusterNodes, Set<String> unusableNodes) {
    if (clusterNodes <= 0) {
      return Optional.empty();
    }
    String oldest = null;
    int excludedUsable = 0;
    for (Map.Entry<String, Long> e : excludedUntil.entrySet()) {
      if (unusableNodes.contains(e.getKey())) {
        continue;
      }
      excludedUsable++;
      if (oldest == null || e.getValue() < excludedUntil.get(oldest)) {
        oldest = e.getKey();
      }
    }
    if (excludedUsable < clusterNodes) {
      return Optional.empty();
    }
    excludedUntil.remove(oldest);
    forgivenThrough.put(oldest, failuresRecorded);
    return Optional.of(oldest);
  }

  /** The excluded nodes, the one whose exclusion ends soonest first. */
  public List<String> excludedNodes() {
    List<String> nodes = new ArrayList<>(excludedUntil.keySet());
    nodes.sort(Comparator.comparing(excludedUntil::get));
    return nodes;
  }

  /** Failures that still count towards the limit, now: within the validity and in a row. */
  public int recentFailures() {
    expire(clock.getAsLong());
    return failuresInARow();
  }

  private int failuresInARow() {
    int n = 0;
    for (Failure f : recent) {
      if (f.sequence() > forgivenForLimitThrough) {
        n++;
      }
    }
    return n;
  }

  public boolean isExcluded(String node) {
    return excludedUntil.containsKey(node);
  }

  private int countingTowardsExclusion(String node) {
    long forgiven = forgivenThrough.getOrDefault(node, 0L);
    int n = 0;
    for (Failure f : recent) {
      if (node.equals(f.node()) && f.sequence() > forgiven) {
        n++;
      }
    }
    return n;
  }

  private Map<String, Integer> perNode() {
    Map<String, Integer> perNode = new TreeMap<>();
    for (Failure f : recent) {
      if (f.node() != null) {
        perNode.merge(f.node(), 1, Integer::sum);
      }
    }
    return perNode;
  }

  private void expire(long now) {
    while (!recent.isEmpty() && now - recent.peekFirst().atMillis() >= validityMillis) {
      recent.removeFirst();
    }
  }
}
