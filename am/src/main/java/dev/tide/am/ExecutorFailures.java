package dev.tide.am;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Executor failures within a validity window, in total and per node, and the nodes excluded for
 * repeated failures (DESIGN.md "Container outcome").
 *
 * <p>A failure counts for {@code validity} ({@code tide.executor.failuresValidityInterval}); the
 * application should fail once more than {@code maxFailures} count at the same time. A node
 * with {@code maxFailuresPerNode} counting failures is excluded for {@code exclusionTimeout},
 * then allowed again (its old failures no longer count towards a new exclusion).
 *
 * <p>Time comes from the injected clock (milliseconds). Not thread-safe: allocator thread only.
 */
public final class ExecutorFailures {
  /** What one failure changed. */
  public record Verdict(boolean tooMany, int recentFailures, Map<String, Integer> perNode,
      boolean nodeExcluded) {}

  private record Failure(long atMillis, String node) {}

  private final int maxFailures;
  private final long validityMillis;
  private final int maxFailuresPerNode;
  private final long exclusionMillis;
  private final LongSupplier clock;
  private final Deque<Failure> recent = new ArrayDeque<>();
  /** Excluded node -> when it may be used again. */
  private final Map<String, Long> excludedUntil = new LinkedHashMap<>();
  /** Failures on a node before this time do not count towards excluding it again. */
  private final Map<String, Long> forgivenBefore = new LinkedHashMap<>();

  public ExecutorFailures(int maxFailures, Duration validity, int maxFailuresPerNode,
      Duration exclusionTimeout, LongSupplier clockMillis) {
    this.maxFailures = maxFailures;
    this.validityMillis = validity.toMillis();
    this.maxFailuresPerNode = maxFailuresPerNode;
    this.exclusionMillis = exclusionTimeout.toMillis();
    this.clock = clockMillis;
  }

  /** Counts one executor failure on {@code node}. */
  public Verdict record(String node) {
    long now = clock.getAsLong();
    expire(now);
    recent.addLast(new Failure(now, node));
    Map<String, Integer> perNode = perNode();
    boolean excluded = false;
    if (maxFailuresPerNode > 0 && !excludedUntil.containsKey(node)
        && countingTowardsExclusion(node) >= maxFailuresPerNode) {
      excludedUntil.put(node, now + exclusionMillis);
      excluded = true;
    }
    return new Verdict(recent.size() > maxFailures, recent.size(), perNode, excluded);
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
        forgivenBefore.put(e.getKey(), now);
        it.remove();
      }
    }
    return ended;
  }

  /** Failures that still count, now. */
  public int recentFailures() {
    expire(clock.getAsLong());
    return recent.size();
  }

  public boolean isExcluded(String node) {
    return excludedUntil.containsKey(node);
  }

  private int countingTowardsExclusion(String node) {
    long since = forgivenBefore.getOrDefault(node, Long.MIN_VALUE);
    int n = 0;
    for (Failure f : recent) {
      if (f.node().equals(node) && f.atMillis() >= since) {
        n++;
      }
    }
    return n;
  }

  private Map<String, Integer> perNode() {
    Map<String, Integer> perNode = new TreeMap<>();
    for (Failure f : recent) {
      perNode.merge(f.node(), 1, Integer::sum);
    }
    return perNode;
  }

  private void expire(long now) {
    while (!recent.isEmpty() && now - recent.peekFirst().atMillis() >= validityMillis) {
      recent.removeFirst();
    }
  }
}
