package dev.tide.am.yarn;

import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The allocator's heartbeat: one allocate call to the RM with the application's progress, and
 * what its response says besides containers (the queue's headroom, the cluster's nodes). A
 * failed call is logged and counted; {@value #MAX_FAILURES} in a row abort the application; an
 * RM that no longer knows the application attempt is reported as that
 * ({@link DriverCallbacks#attemptGone}).
 *
 * <p>Not thread-safe (the allocator thread only), except {@link #grantableExecutors()}.
 */
final class ResourceManagerHeartbeat {
  private static final Logger LOG = LoggerFactory.getLogger(ResourceManagerHeartbeat.class);
  /** Consecutive failed heartbeats before the application is aborted. */
  static final int MAX_FAILURES = 5;

  private final AMRMClient<ContainerRequest> amrmClient;
  private final Resource executorResource;
  private final NodeExclusions exclusions;
  private final Consumer<String> abort;
  private final Consumer<String> attemptGone;
  private int failuresInARow;
  private volatile int grantableExecutors;

  /**
   * @param abort aborts the application (once) with these diagnostics
   * @param attemptGone told (once) that the RM no longer knows the attempt, with diagnostics
   */
  ResourceManagerHeartbeat(AMRMClient<ContainerRequest> amrmClient, Resource executorResource,
      NodeExclusions exclusions, Consumer<String> abort, Consumer<String> attemptGone) {
    this.amrmClient = amrmClient;
    this.executorResource = executorResource;
    this.exclusions = exclusions;
    this.abort = abort;
    this.attemptGone = attemptGone;
  }

  /** One heartbeat; null when it failed. */
  AllocateResponse allocate(Supplier<Float> progress) {
    try {
      AllocateResponse response = amrmClient.allocate(clamped(progress));
      failuresInARow = 0;
      if (response.getAvailableResources() != null) {
        grantableExecutors = executorsThatFit(response.getAvailableResources(),
            executorResource);
      }
      exclusions.noteClusterNodes(response);
      return response;
    } catch (ApplicationAttemptNotFoundException e) {
      attemptGone.accept("the ResourceManager no longer knows this application attempt: "
          + e.getMessage());
    } catch (Exception e) {
      failuresInARow++;
      LOG.warn("Heartbeat to the ResourceManager failed ({} in a row)", failuresInARow, e);
      if (failuresInARow >= MAX_FAILURES) {
        abort.accept("lost contact with the ResourceManager after " + failuresInARow
            + " failed heartbeats: " + e);
      }
    }
    return null;
  }

  /** The last heartbeat, when stopping (so the RM learns of the releases); failures logged. */
  void last(Supplier<Float> progress) {
    try {
      amrmClient.allocate(clamped(progress));
    } catch (Exception e) {
      LOG.warn("Final heartbeat (releasing containers) failed", e);
    }
  }

  /**
   * Executors of this application's container size the queue could still grant, from the last
   * response's available resources; 0 before the first. Any thread (a volatile read).
   */
  int grantableExecutors() {
    return grantableExecutors;
  }

  /** Whole executors that fit, by memory and by vcores, in {@code available}. */
  static int executorsThatFit(Resource available, Resource executor) {
    if (available == null || executor == null) {
      return 0;
    }
    long byMemory = executor.getMemorySize() <= 0 ? Long.MAX_VALUE
        : available.getMemorySize() / executor.getMemorySize();
    long byCores = executor.getVirtualCores() <= 0 ? Long.MAX_VALUE
        : available.getVirtualCores() / executor.getVirtualCores();
    long fit = Math.min(byMemory, byCores);
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE - 1, fit));
  }

  private static float clamped(Supplier<Float> progress) {
    try {
      Float value = progress == null ? null : progress.get();
      return value == null ? 0f : Math.max(0f, Math.min(1f, value));
    } catch (RuntimeException e) {
      LOG.debug("Progress unavailable", e);
      return 0f;
    }
  }
}
