package dev.tide.driver.alloc;

/**
 * A ramp-up that asks at once for what the backlog can still use when the executors arrive
 * ({@code tide.dynamicAllocation.rampUp=backlog}), capped by the queue's headroom.
 *
 * <p>At a backlog's first ramp-up point, if the backlog will be gone before an executor asked
 * for now could start (the executors there and coming run it, new arrivals included, within the
 * measured start latency: {@link Backlog#outlastsStart}), it asks for nothing: tiny tasks get no
 * executors that would arrive after the work is gone. Otherwise, or when the backlog has
 * outlived that expectation (a later point of the same backlog), or when nothing is known of
 * the tasks' run time (no evidence that they are short), the pending tasks will still be waiting
 * when new executors arrive, so it asks in one step for {@code base + grantableExecutors()} (the
 * policy caps that at what the tasks need), instead of waiting through doubling rounds.
 */
public final class BacklogRampUp implements RampUp {
  private final ClusterHeadroom headroom;

  public BacklogRampUp(ClusterHeadroom headroom) {
    this.headroom = headroom;
  }

  @Override
  public long raise(int base, int step, int activeExecutors) {
    return (long) base + step;
  }

  @Override
  public long raise(int base, int step, int activeExecutors, Backlog backlog) {
    long reachable = Math.max(base + 1L, (long) base + Math.max(0, headroom.grantableExecutors()));
    boolean ask = backlog.sustained() || backlog.taskMillis() <= 0
        || backlog.outlastsStart(activeExecutors);
    return ask ? reachable : base;
  }

  @Override
  public String toString() {
    return "backlog";
  }
}
