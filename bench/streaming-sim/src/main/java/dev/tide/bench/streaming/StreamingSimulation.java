package dev.tide.bench.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy.BeforeBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.alloc.StreamingAllocationPolicy.Decision;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One run of a trace under one strategy: a discrete-event loop over simulated milliseconds.
 *
 * <p>The driver runs one batch at a time: a batch is due at the end of its interval; when none
 * runs, the strategy is told the state and decides, then the batch starts; it takes the model's
 * overhead, then its tasks go to free slots in order (an executor that registers mid-batch takes
 * tasks at once). Batches that come due meanwhile wait (scheduling delay). The allocator holds
 * the target: an executor asked for registers after the start latency; a lower target cancels
 * starting executors first; the strategy's removals go at once (idle executors first; a busy
 * one's task is run again); a lost executor is replaced. Executor-seconds run from the ask to
 * the removal (a starting container is paid for).
 *
 * <p>Single-threaded and deterministic.
 */
final class StreamingSimulation {
  /** Runs longer than the trace by at most this to drain the waiting batches. */
  private static final long DRAIN_LIMIT_MILLIS = 600_000;

  /**
   * What a run measured.
   *
   * @param executorMillis from each ask to its removal, up to the end of the trace or the last
   *     batch, whichever is later
   * @param reversals target changes whose direction differs from the previous change's
   * @param minHeldAtBatch fewest executors registered or starting when a batch was submitted
   * @param unfinished batches that never completed (a hang)
   * @param settleMillis per step of the trace: from the step to the end of the last delayed
   *     batch due before the next step, or to the last target change then, whichever is later
   * @param actions per step: target changes from the step to the next
   * @param changeLog each target change: time, old and new target, the strategy's reason
   */
  record Result(String strategy, int batches, int delayed, long maxDelayMillis,
      long p99DelayMillis, long executorMillis, int targetChanges, int reversals, int peakTarget,
      int minHeldAtBatch, int unfinished, long[] settleMillis, int[] actions,
      List<String> changeLog) {}

  private static final class Executor {
    final long askedAt;
    long goneAt = -1;
    boolean registered;
    int task = -1;
    long taskStart;
    int attempt;

    Executor(long askedAt) {
      this.askedAt = askedAt;
    }
  }

  private static final class RunningBatch {
    final BatchModel.Batch batch;
    final long start;
    final int executorsAtStart;
    final Deque<Integer> pending = new ArrayDeque<>();
    int unfinished;
    long taskMillis;
    boolean changed;

    RunningBatch(BatchModel.Batch batch, long start, int executorsAtStart) {
      this.batch = batch;
      this.start = start;
      this.executorsAtStart = executorsAtStart;
      this.unfinished = batch.taskMillis().length;
    }
  }

  private record Event(long atMillis, long seq, Runnable action) {}

  private final BatchModel model;
  private final RateTrace trace;
  private final List<BatchModel.Batch> batches;
  private final long startLatencyMillis;
  private final Strategy strategy;
  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) ->
      a.atMillis != b.atMillis ? Long.compare(a.atMillis, b.atMillis) : Long.compare(a.seq, b.seq));
  private final List<Executor> all = new ArrayList<>();
  private final List<Executor> registered = new ArrayList<>();
  private final List<Executor> starting = new ArrayList<>();
  private final Deque<BatchModel.Batch> waiting = new ArrayDeque<>();
  private final long[] delays;
  private final boolean[] delayed;
  private final long[] ends;
  private final List<Long> changeTimes = new ArrayList<>();
  private final List<String> changeLog = new ArrayList<>();
  private RunningBatch running;
  private long seq;
  private long now;
  private int target;
  private int completed;
  private int changes;
  private int reversals;
  private int lastDirection;
  private int peakTarget;
  private int minHeld = Integer.MAX_VALUE;

  private StreamingSimulation(BatchModel model, RateTrace trace, List<BatchModel.Batch> batches,
      long startLatencyMillis, Strategy strategy) {
    this.model = model;
    this.trace = trace;
    this.batches = batches;
    this.startLatencyMillis = startLatencyMillis;
    this.strategy = strategy;
    this.delays = new long[batches.size()];
    this.delayed = new boolean[batches.size()];
    this.ends = new long[batches.size()];
  }

  /** Runs the trace; every strategy starts with {@code initialExecutors} registered. */
  static Result run(BatchModel model, RateTrace trace, List<BatchModel.Batch> batches,
      long startLatencyMillis, int initialExecutors, String name, Strategy strategy) {
    return new StreamingSimulation(model, trace, batches, startLatencyMillis, strategy)
        .run(name, initialExecutors);
  }

  private Result run(String name, int initialExecutors) {
    target = initialExecutors;
    peakTarget = target;
    for (int i = 0; i < initialExecutors; i++) {
      Executor e = new Executor(0);
      e.registered = true;
      all.add(e);
      registered.add(e);
    }
    for (BatchModel.Batch b : batches) {
      at(b.dueMillis(), () -> due(b));
    }
    if (trace.executorLostAtMillis() >= 0) {
      at(trace.executorLostAtMillis(), this::loseExecutor);
    }
    scheduleTimer();
    long limit = trace.lengthMillis() + DRAIN_LIMIT_MILLIS;
    while (completed < batches.size() && !events.isEmpty() && events.peek().atMillis <= limit) {
      Event e = events.poll();
      now = e.atMillis();
      e.action().run();
    }
    long end = Math.max(trace.lengthMillis(), now);
    long executorMillis = 0;
    for (Executor e : all) {
      executorMillis += (e.goneAt < 0 ? end : e.goneAt) - e.askedAt;
    }
    long[] sortedDelays = Arrays.copyOf(delays, completed);
    Arrays.sort(sortedDelays);
    int delayedCount = 0;
    for (int i = 0; i < completed; i++) {
      delayedCount += delayed[i] ? 1 : 0;
    }
    int steps = trace.stepsMillis().size();
    long[] settle = new long[steps];
    int[] actions = new int[steps];
    for (int s = 0; s < steps; s++) {
      long from = trace.stepsMillis().get(s);
      long to = s + 1 < steps ? trace.stepsMillis().get(s + 1) : Long.MAX_VALUE;
      long last = from;
      for (int i = 0; i < completed; i++) {
        long due = batches.get(i).dueMillis();
        if (delayed[i] && due > from && due <= to) {
          last = Math.max(last, ends[i]);
        }
      }
      for (long t : changeTimes) {
        if (t >= from && t < to) {
          last = Math.max(last, t);
          actions[s]++;
        }
      }
      settle[s] = last - from;
    }
    return new Result(name, batches.size(), delayedCount,
        completed == 0 ? 0 : sortedDelays[completed - 1],
        completed == 0 ? 0 : sortedDelays[(int) Math.ceil(0.99 * completed) - 1],
        executorMillis, changes, reversals, peakTarget, minHeld, batches.size() - completed,
        settle, actions, List.copyOf(changeLog));
  }

  private void at(long atMillis, Runnable action) {
    events.add(new Event(atMillis, seq++, action));
  }

  private void scheduleTimer() {
    long next = strategy.nextTimerMillis(now);
    if (next >= 0) {
      at(next, () -> {
        int idle = (int) registered.stream().filter(e -> e.task < 0).count();
        Decision d = strategy.onTimer(new Strategy.Cluster(now, registered.size(), idle,
            starting.size(), target));
        if (d != null) {
          apply(d);
        }
        scheduleTimer();
      });
    }
  }

  private void due(BatchModel.Batch batch) {
    waiting.addLast(batch);
    if (running == null) {
      startNext();
    }
  }

  private void startNext() {
    if (waiting.isEmpty()) {
      return;
    }
    long waitingRecords = waiting.stream().mapToLong(BatchModel.Batch::records).sum();
    BatchModel.Batch batch = waiting.peekFirst();
    apply(strategy.beforeBatch(new BeforeBatch(now, batch.dueMillis(), waiting.size(),
        waitingRecords, registered.size(), starting.size(), target)));
    minHeld = Math.min(minHeld, registered.size() + starting.size());
    waiting.removeFirst();
    RunningBatch r = new RunningBatch(batch, now, registered.size());
    running = r;
    at(now + model.overheadMillis(), () -> {
      for (int t = 0; t < batch.taskMillis().length; t++) {
        r.pending.addLast(t);
      }
      assignTasks();
    });
  }

  private void assignTasks() {
    if (running == null) {
      return;
    }
    for (Executor e : registered) {
      if (running.pending.isEmpty()) {
        return;
      }
      if (e.task < 0) {
        e.task = running.pending.removeFirst();
        e.taskStart = now;
        int attempt = ++e.attempt;
        at(now + running.batch.taskMillis()[e.task], () -> taskEnded(e, attempt));
      }
    }
  }

  private void taskEnded(Executor e, int attempt) {
    if (e.goneAt >= 0 || e.attempt != attempt) {
      return;
    }
    RunningBatch r = running;
    r.taskMillis += now - e.taskStart;
    e.task = -1;
    if (--r.unfinished > 0) {
      assignTasks();
      return;
    }
    int index = r.batch.index();
    long processing = now - r.start;
    long delay = r.start - r.batch.dueMillis();
    delays[index] = delay;
    delayed[index] = processing > model.intervalMillis() || delay > 0;
    ends[index] = now;
    completed++;
    running = null;
    strategy.batchCompleted(new CompletedBatch(r.batch.dueMillis(), r.batch.records(),
        processing, delay, delayed[index], r.taskMillis / 1000.0, r.executorsAtStart,
        r.changed, r.batch.taskMillis().length));
    startNext();
  }

  /** The driver applies a decision: removals now, then the allocator meets the target. */
  private void apply(Decision d) {
    int remove = d.remove();
    List<Executor> byPreference = new ArrayList<>(registered);
    byPreference.sort((a, b) -> Boolean.compare(a.task >= 0, b.task >= 0));
    for (int i = 0; i < remove && i < byPreference.size(); i++) {
      remove(byPreference.get(i));
    }
    if (d.target() != target) {
      int direction = Integer.signum(d.target() - target);
      if (lastDirection != 0 && direction != lastDirection) {
        reversals++;
      }
      lastDirection = direction;
      changes++;
      changeTimes.add(now);
      changeLog.add(String.format(java.util.Locale.ROOT, "%7.1f s  %2d -> %2d  %s", now / 1000.0,
          target, d.target(), d.reason()));
      target = d.target();
      peakTarget = Math.max(peakTarget, target);
    }
    reconcile();
    assignTasks();
  }

  private void remove(Executor e) {
    if (e.task >= 0) {
      running.taskMillis += now - e.taskStart;
      running.pending.addFirst(e.task);
      e.task = -1;
    }
    if (running != null) {
      running.changed = true;
    }
    registered.remove(e);
    e.goneAt = now;
  }

  /** The allocator: asks for executors up to the target, cancels starting ones above it. */
  private void reconcile() {
    while (registered.size() + starting.size() < target) {
      Executor e = new Executor(now);
      all.add(e);
      starting.add(e);
      at(now + startLatencyMillis, () -> registered(e));
    }
    while (registered.size() + starting.size() > target && !starting.isEmpty()) {
      starting.remove(starting.size() - 1).goneAt = now;
    }
  }

  private void registered(Executor e) {
    if (e.goneAt >= 0) {
      return;
    }
    starting.remove(e);
    e.registered = true;
    registered.add(e);
    if (running != null) {
      running.changed = true;
    }
    assignTasks();
  }

  private void loseExecutor() {
    Executor victim = registered.stream().filter(e -> e.task >= 0).findFirst()
        .orElse(registered.isEmpty() ? null : registered.get(0));
    if (victim != null) {
      remove(victim);
      reconcile();
      assignTasks();
    }
  }
}
