package dev.tide.driver.alloc;

/**
 * How far the batch policy raises its target at one ramp-up point (after the backlog has lasted
 * {@code schedulerBacklogTimeout}, then every {@code sustainedSchedulerBacklogTimeout}). The
 * policy clamps the answer to what the tasks need and to [minExecutors, maxExecutors], and keeps
 * the step: it doubles when the whole step was used, otherwise it goes back to 1.
 *
 * <p>Implementations are called on the driver's event-loop thread only.
 */
public interface RampUp {
  /**
   * What the policy knows of the backlog at a ramp-up point.
   *
   * @param pendingTasks tasks waiting for a slot
   * @param tasksPerExecutor task slots of one executor
   * @param taskMillis expected run time of a pending task; before one of its stage finished, a
   *     lower bound (how long one has run); 0 when nothing is known
   * @param startLatencyMillis measured time from a container's allocation to its executor's
   *     registration
   * @param startingExecutors executors asked for and not registered yet ({@code target -
   *     activeExecutors}, at least 0)
   * @param arrivalsPerSecond tasks submitted per second, lately
   * @param sustained an earlier ramp-up point of this backlog has passed (it did not drain as
   *     expected then)
   */
  record Backlog(int pendingTasks, int tasksPerExecutor, long taskMillis,
      long startLatencyMillis, int startingExecutors, double arrivalsPerSecond,
      boolean sustained) {
    /**
     * Whether the pending tasks will clearly still be waiting when an executor asked for now
     * has started: no executor is there or coming; or the executors there and coming need
     * longer than the start latency to run them at the known run time (or its lower bound),
     * new arrivals included (arrivals that alone keep every slot busy never let the backlog
     * drain).
     */
    public boolean outlastsStart(int activeExecutors) {
      long executors = (long) activeExecutors + startingExecutors;
      if (executors == 0) {
        return true;
      }
      if (taskMillis <= 0) {
        return false;
      }
      double tasksPerSecond = executors * tasksPerExecutor * 1000.0 / taskMillis;
      double drainsPerSecond = tasksPerSecond - arrivalsPerSecond;
      return drainsPerSecond <= 0 || pendingTasks / drainsPerSecond * 1000 > startLatencyMillis;
    }
  }

  /**
   * The target to ask for before clamping; never below {@code base}.
   *
   * @param base {@code max(target, activeExecutors)}: where the ramp starts from
   * @param step the current add step (1, 2, 4, ...)
   * @param activeExecutors executors running and not being removed
   */
  long raise(int base, int step, int activeExecutors);

  /** As {@link #raise(int, int, int)}, for a ramp that also reads the backlog. */
  default long raise(int base, int step, int activeExecutors, Backlog backlog) {
    return raise(base, step, activeExecutors);
  }

  /** The ramp-up chosen by {@code tide.dynamicAllocation.rampUp}. */
  static RampUp of(AllocationSettings.RampUpMode mode, ClusterHeadroom headroom) {
    return switch (mode) {
      case EXPONENTIAL -> new ExponentialRampUp();
      case HEADROOM -> new HeadroomRampUp(headroom);
      case BACKLOG -> new BacklogRampUp(headroom);
    };
  }
}
