package dev.tide.am.yarn;

import dev.tide.driver.Driver;
import dev.tide.driver.events.EventName;

/**
 * What the YARN allocator tells the driver: executors launched and exited, a fatal cluster-side
 * failure, and events for the event log. A narrow view of {@link Driver} so the allocator can be
 * tested with a hand-written fake. Implementations must be thread-safe and return quickly.
 */
public interface DriverCallbacks {
  /**
   * An executor's container was started; it will register under {@code executorId}.
   * {@code sinceAllocationMillis}: how long after its container's allocation (the NodeManager's
   * launch), so the driver measures the start latency from the allocation.
   */
  void executorLaunched(String executorId, String host, int shufflePort,
      long sinceAllocationMillis);

  /** A launched executor's container ended. */
  void executorExited(String executorId, boolean failure, String diagnostics);

  /** The application cannot go on (for example too many executor failures). */
  void abort(String diagnostics);

  /** Records a cluster-side event: {@code keyValues} alternate key and value. */
  void logEvent(EventName event, Object... keyValues);

  /**
   * Whether the executor has registered with the driver (its RPC connection is authenticated and
   * it can take tasks). The allocator polls it on its own thread, once per heartbeat, for each
   * launched executor that has not registered yet, and releases (and replaces) one that is still
   * unregistered {@code tide.executor.registrationTimeout} after its launch. Must return at once
   * (read a concurrent set, no I/O); once true it must stay true for that id, also after the
   * executor has gone. Unknown ids return false.
   */
  boolean isExecutorRegistered(String executorId);

  /**
   * Whether the driver has seen this executor go (its connection closed, or its exit reported):
   * when the allocator stops, it waits a little for the containers of such executors to be
   * reported complete, so that why they ended (ran out of heap, killed for memory) is logged
   * before their containers are released. Must return at once; unknown ids return false.
   */
  boolean isExecutorGone(String executorId);

  /**
   * How many tasks have succeeded so far: executor failures with a task's success between them
   * are not failures in a row (see {@link dev.tide.am.allocation.ExecutorFailures}). Must
   * return at once.
   */
  long tasksSucceeded();

  /** Adapts a real driver. */
  static DriverCallbacks of(Driver driver) {
    return new DriverCallbacks() {
      @Override
      public boolean isExecutorRegistered(String executorId) {
        return driver.isExecutorRegistered(executorId);
      }

      @Override
      public boolean isExecutorGone(String executorId) {
        return driver.isExecutorGone(executorId);
      }

      @Override
      public long tasksSucceeded() {
        return driver.tasksSucceeded();
      }

      @Override
      public void executorLaunched(String executorId, String host, int shufflePort,
          long sinceAllocationMillis) {
        driver.executorLaunched(executorId, host, shufflePort, sinceAllocationMillis);
      }

      @Override
      public void executorExited(String executorId, boolean failure, String diagnostics) {
        driver.executorExited(executorId, failure, diagnostics);
      }

      @Override
      public void abort(String diagnostics) {
        driver.abort(diagnostics);
      }

      @Override
      public void logEvent(EventName event, Object... keyValues) {
        driver.logEvent(event, keyValues);
      }
    };
  }
}
