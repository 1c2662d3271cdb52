package dev.tide.queue;

import java.util.Objects;

/**
 * What the scheduler shows of one application at the moment the policy builds an assignment
 * iterator. Facts, not phases: the {@link StartGate} turns them into phase changes, which is how
 * applications recovered after a ResourceManager restart (whose containers come back without
 * allocation events) find their phase.
 *
 * @param appId the application's id, the key of the gate
 * @param amAllocated the application no longer waits for its AM container
 * @param executorAllocated the application holds at least one live non-AM container
 * @param pendingDemand the application has outstanding resource requests in the partition being
 *     scheduled
 */
public record AppObservation(
    String appId, boolean amAllocated, boolean executorAllocated, boolean pendingDemand) {

  public AppObservation {
    Objects.requireNonNull(appId, "appId");
  }

  /** An observation that needs no facts because the gate already knows the app is Running. */
  static AppObservation knownRunning(String appId) {
    return new AppObservation(appId, true, true, false);
  }
}
