package dev.tide.driver.alloc;

/**
 * How many more executors the cluster could grant this application right now. The
 * {@code headroom} ramp-up ({@link HeadroomRampUp}) reads it to ask in one step for what the
 * queue can give instead of doubling its way there.
 *
 * <p>Contract for implementations (the YARN allocator derives it from the last allocate
 * response):
 * <ul>
 *   <li>Unit: whole executors of this application's container size (executor memory + overhead,
 *       executor cores), beyond those already allocated to the application (running or
 *       starting). For YARN: {@code min(availableMemory / containerMemory, availableVCores /
 *       containerVCores)} of {@code AllocateResponse#getAvailableResources()}, rounded down,
 *       never negative.</li>
 *   <li>Threading: called from the driver's event-loop thread once per ramp-up step (at most
 *       every {@code sustainedSchedulerBacklogTimeout}); it must return at once, without I/O
 *       or locks held by another thread (publish the value through a volatile field).</li>
 *   <li>Staleness: the value of the latest heartbeat is fine; it is only a hint. The policy
 *       never asks for fewer executors than the exponential ramp would, so an implementation
 *       that does not know yet (before its first allocate response) returns 0.</li>
 *   <li>{@link Integer#MAX_VALUE} means "no known limit": the target then goes straight to
 *       what the tasks need.</li>
 * </ul>
 */
@FunctionalInterface
public interface ClusterHeadroom {
  /** Executors the cluster could still grant now, {@code >= 0}; see the interface contract. */
  int grantableExecutors();

  /** A cluster with no known limit (for tests and clients that cannot tell). */
  ClusterHeadroom UNLIMITED = () -> Integer.MAX_VALUE;
}
