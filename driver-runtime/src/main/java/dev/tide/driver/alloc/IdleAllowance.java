package dev.tide.driver.alloc;

/**
 * How much of the application's recent executor time was idle, against how much was busy, for
 * the rent-or-buy cap of the lookahead ({@code idleAllowance}, docs/allocation.md): executors
 * kept idle for a stage forecast to come go under the cap only once the idle time reaches
 * {@code allowance} times the busy time. Before that, waiting for a stage that comes late costs
 * executor time the application can afford, while letting them go starts that stage cold, and
 * the whole job waits a start for it (on the simulator's holdout traces, the write stage of an
 * ETL job: 26 executors let go one by one while a reduce straggler ran, 7 s of a 220 s job).
 * Both times are measured over the last minutes only (each decays with a time constant of
 * {@value #MEMORY_MILLIS} ms), so hours of busy time do not buy hours of waiting.
 *
 * <p>Pure: time is passed in. Not thread-safe (the policy's owner calls it).
 */
final class IdleAllowance {
  /** Time constant of the decay of both times. */
  static final long MEMORY_MILLIS = 600_000;
  private static final long NOT_SET = Long.MIN_VALUE;

  private final double allowance;
  private long lastMillis = NOT_SET;
  private double busyMillis;
  private double idleMillis;

  /** @param allowance idle time allowed per busy time (0: none, the cap alone decides) */
  IdleAllowance(double allowance) {
    this.allowance = allowance;
  }

  /**
   * Counts the time since the previous call at the executors busy and idle now.
   *
   * @param busyExecutors executors' worth of running tasks (running tasks / task slots)
   * @param idleExecutors executors with no task
   */
  void observe(long nowMillis, double busyExecutors, int idleExecutors) {
    if (lastMillis != NOT_SET && nowMillis > lastMillis) {
      long elapsed = nowMillis - lastMillis;
      double kept = Math.exp(-(double) elapsed / MEMORY_MILLIS);
      busyMillis = busyMillis * kept + busyExecutors * elapsed;
      idleMillis = idleMillis * kept + (double) idleExecutors * elapsed;
    }
    lastMillis = nowMillis;
  }

  /**
   * Whether {@code executorMillis} more idle time stays within half the allowance: what the
   * lookahead may commit up front to wait for a stage forecast beyond two start latencies,
   * leaving the other half to the cap's own waits.
   */
  boolean affords(double executorMillis) {
    return allowance > 0 && idleMillis + executorMillis <= allowance * busyMillis / 2;
  }

  /** Whether the idle time is still under {@code allowance} times the busy time. */
  boolean covers() {
    return allowance > 0 && idleMillis < allowance * busyMillis;
  }
}
