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
   * The target to ask for before clamping; never below {@code base}.
   *
   * @param base {@code max(target, activeExecutors)}: where the ramp starts from
   * @param step the current add step (1, 2, 4, ...)
   * @param activeExecutors executors running and not being removed
   */
  long raise(int base, int step, int activeExecutors);

  /** The ramp-up chosen by {@code tide.dynamicAllocation.rampUp}. */
  static RampUp of(AllocationSettings.RampUpMode mode, ClusterHeadroom headroom) {
    return switch (mode) {
      case EXPONENTIAL -> new ExponentialRampUp();
      case HEADROOM -> new HeadroomRampUp(headroom);
    };
  }
}
