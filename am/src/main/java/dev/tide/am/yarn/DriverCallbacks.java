package dev.tide.am.yarn;

import dev.tide.driver.Driver;
import dev.tide.driver.events.EventName;
import dev.tide.driver.scheduler.ExecutorActivity;
import java.util.List;
import java.util.function.BooleanSupplier;

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

  /**
   * An allocate call found that the ResourceManager no longer knows this application attempt:
   * the application was killed (its attempt ends at once, the NodeManager's SIGTERM to this
   * container follows), or the attempt was failed (it expired, or the ResourceManager forgot
   * it). Default: {@link #abort}.
   */
  default void attemptGone(String diagnostics) {
    abort(diagnostics);
  }

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

  /** The RM's name of the node an executor was launched on (node events name nodes so). */
  default void executorNode(String executorId, String node) {}

  /**
   * The RM reports {@code node} decommissioning; it leaves at {@code leavesAtMillis} (epoch ms,
   * -1 when no timeout was given). See {@link Driver#onNodeDecommissioning}.
   */
  default void nodeDecommissioning(String node, long leavesAtMillis) {}

  /** The RM reports {@code node} gone (decommissioned, lost, unhealthy, shut down). */
  default void nodeLost(String node) {}

  /** The RM reports {@code node} running again after a decommissioning. */
  default void nodeRunning(String node) {}

  /**
   * YARN takes the executor's container back (it was named in a preemption message, or the AM
   * gives it back for one): see {@link Driver#executorPreempted}.
   */
  default void executorPreempted(String executorId, String why) {}

  /** What each executor does now (for the choice of containers to give back); never blocks. */
  default List<ExecutorActivity> executorActivity() {
    return List.of();
  }

  /**
   * Adapts a real driver. When the attempt is gone and {@code killed} answers that the
   * ResourceManager ended the application as killed, the job ends as killed, as it does on the
   * SIGTERM that follows (which may come later than the next heartbeat); otherwise it is aborted.
   */
  static DriverCallbacks of(Driver driver, BooleanSupplier killed) {
    return new DriverCallbacks() {
      @Override
      public void attemptGone(String diagnostics) {
        if (killed.getAsBoolean()) {
          driver.kill("the application was killed (the ResourceManager ended its attempt: "
              + diagnostics + ")");
        } else {
          driver.abort(diagnostics);
        }
      }

      @Override
      public void executorNode(String executorId, String node) {
        driver.executorNode(executorId, node);
      }

      @Override
      public void nodeDecommissioning(String node, long leavesAtMillis) {
        driver.onNodeDecommissioning(node, leavesAtMillis);
      }

      @Override
      public void nodeLost(String node) {
        driver.onNodeLost(node);
      }

      @Override
      public void nodeRunning(String node) {
        driver.onNodeRunning(node);
      }

      @Override
      public void executorPreempted(String executorId, String why) {
        driver.executorPreempted(executorId, why);
      }

      @Override
      public List<ExecutorActivity> executorActivity() {
        return driver.executorActivity();
      }

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
