package dev.tide.driver.alloc;

/**
 * A ramp-up that asks at once for what the backlog can still use when the executors arrive
 * ({@code tide.dynamicAllocation.rampUp=backlog}), capped by the queue's headroom.
 *
 * <p>Until new executors register (one start latency {@code L}), the executors there keep
 * draining the backlog: each active one runs {@code slots x L / taskMillis} tasks, each starting
 * one about half as many. What is left then keeps {@code ceil(left / slots)} executors busy; the
 * ramp asks for that many in one step, never more than {@code base + grantableExecutors()}, never
 * less than {@code base}. So tiny tasks get no executors that would arrive after the work is gone,
 * and a long backlog gets its executors without waiting through doubling rounds.
 *
 * <p>Before a task run time is known: with no executor at all it asks for what the queue can
 * grant (the policy caps it at what the tasks need), as static allocation would; with executors
 * it adds the exponential step until their tasks tell how long a task takes.
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
    long reachable = (long) base + Math.max(0, headroom.grantableExecutors());
    if (backlog.taskMillis() == DemandForecast.UNKNOWN || backlog.taskMillis() <= 0) {
      return base == 0 ? Math.max(1, reachable) : (long) base + step;
    }
    double tasksPerExecutorUntilArrival = (double) backlog.tasksPerExecutor()
        * backlog.startLatencyMillis() / backlog.taskMillis();
    double drained = tasksPerExecutorUntilArrival
        * (activeExecutors + backlog.startingExecutors() / 2.0);
    double left = backlog.pendingTasks() - drained;
    if (left <= 0) {
      return base;
    }
    long useful = (long) Math.ceil(left / backlog.tasksPerExecutor());
    return Math.max(base, Math.min(useful, reachable));
  }

  @Override
  public String toString() {
    return "backlog";
  }
}
