package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.IdleExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The task side of the simulation, with the counts the real {@code JobScheduler} gives the
 * policy: pending tasks in FIFO order, free slots filled at once, idle-since per executor,
 * executors pending removal get no tasks. It also keeps, per executor, the time it was busy (at
 * least one task running) and the time it sat idle before a later task, for the account of
 * executor time. Single-threaded; simulated milliseconds.
 */
final class SimulatedScheduler {
  /** A task handed to an executor. */
  record Start(String executorId, int stage, long durationMillis) {}

  private record PendingTask(int stage, long durationMillis) {}

  /** How one executor spent its registered time so far. */
  static final class Usage {
    long busyMillis;
    long idleThenReusedMillis;
    boolean used;
  }

  private static final class Executor {
    int busy;
    long idleSinceMillis;
    long busySinceMillis;
    boolean pendingRemoval;
    final Usage usage = new Usage();

    Executor(long now) {
      this.idleSinceMillis = now;
    }
  }

  private final int slotsPerExecutor;
  private final Deque<PendingTask> pending = new ArrayDeque<>();
  private final Map<String, Executor> executors = new LinkedHashMap<>();
  private final Map<String, Usage> usage = new HashMap<>();
  private int running;

  SimulatedScheduler(int slotsPerExecutor) {
    this.slotsPerExecutor = slotsPerExecutor;
  }

  void submit(int stage, long[] taskMillis) {
    for (long t : taskMillis) {
      pending.add(new PendingTask(stage, t));
    }
  }

  void executorAdded(String id, long nowMillis) {
    Executor e = new Executor(nowMillis);
    executors.put(id, e);
    usage.put(id, e.usage);
  }

  void markPendingRemoval(Collection<String> ids) {
    for (String id : ids) {
      Executor e = executors.get(id);
      if (e != null) {
        e.pendingRemoval = true;
      }
    }
  }

  /** The executor's container is gone (only idle executors are ever killed here). */
  void executorRemoved(String id) {
    executors.remove(id);
  }

  /** Fills free slots of active executors with pending tasks. */
  List<Start> assign(long nowMillis) {
    List<Start> starts = new ArrayList<>();
    if (pending.isEmpty()) {
      return starts;
    }
    for (Map.Entry<String, Executor> entry : executors.entrySet()) {
      Executor e = entry.getValue();
      while (!e.pendingRemoval && e.busy < slotsPerExecutor && !pending.isEmpty()) {
        PendingTask t = pending.poll();
        if (e.busy == 0) {
          e.usage.idleThenReusedMillis += nowMillis - e.idleSinceMillis;
          e.usage.used = true;
          e.busySinceMillis = nowMillis;
        }
        e.busy++;
        running++;
        starts.add(new Start(entry.getKey(), t.stage(), t.durationMillis()));
      }
      if (pending.isEmpty()) {
        break;
      }
    }
    return starts;
  }

  void taskFinished(String executorId, long nowMillis) {
    running--;
    Executor e = executors.get(executorId);
    if (e != null && --e.busy == 0) {
      e.idleSinceMillis = nowMillis;
      e.usage.busyMillis += nowMillis - e.busySinceMillis;
    }
  }

  /** Closes the busy periods still open at the end of the run. */
  void endRun(long nowMillis) {
    for (Executor e : executors.values()) {
      if (e.busy > 0) {
        e.usage.busyMillis += nowMillis - e.busySinceMillis;
        e.busySinceMillis = nowMillis;
      }
    }
  }

  /** How the executor spent its registered time, or null if it never registered. */
  Usage usage(String executorId) {
    return usage.get(executorId);
  }

  int pendingTasks() {
    return pending.size();
  }

  int runningTasks() {
    return running;
  }

  int activeExecutors() {
    int n = 0;
    for (Executor e : executors.values()) {
      if (!e.pendingRemoval) {
        n++;
      }
    }
    return n;
  }

  List<IdleExecutor> idleExecutors() {
    List<IdleExecutor> idle = new ArrayList<>();
    for (Map.Entry<String, Executor> entry : executors.entrySet()) {
      Executor e = entry.getValue();
      if (e.busy == 0 && !e.pendingRemoval) {
        idle.add(new IdleExecutor(entry.getKey(), e.idleSinceMillis));
      }
    }
    return idle;
  }
}
