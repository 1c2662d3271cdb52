package dev.tide.driver.alloc;

/**
 * A ramp-up that asks in one step for what the queue can grant now: {@code activeExecutors +
 * grantableExecutors()} (the policy then clamps it to what the tasks need). It never asks for
 * less than the exponential step would, so a full queue, or a headroom not known yet, falls back
 * to the exponential ramp instead of stalling.
 *
 * <p>Reads the headroom on the driver's event-loop thread, once per ramp-up point.
 */
public final class HeadroomRampUp implements RampUp {
  private final ClusterHeadroom headroom;

  public HeadroomRampUp(ClusterHeadroom headroom) {
    this.headroom = headroom;
  }

  @Override
  public long raise(int base, int step, int activeExecutors) {
    long reachable = (long) activeExecutors + Math.max(0, headroom.grantableExecutors());
    return Math.max((long) base + step, reachable);
  }

  @Override
  public String toString() {
    return "headroom";
  }
}
