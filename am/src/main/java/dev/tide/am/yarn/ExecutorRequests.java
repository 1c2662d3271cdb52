package dev.tide.am.yarn;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.Container;

/**
 * The allocator's outstanding asks to the ResourceManager for executor containers: reconciles
 * them with the declared target and matches allocated containers against them. Two kinds exist:
 * {@link ContainerRequestReconciler} (container requests, with locality or node lists) and
 * {@link ConstraintRequests} (one scheduling request under a placement constraint).
 *
 * <p>Threading: not thread-safe; owned by the allocator thread, like the AMRM client.
 */
public interface ExecutorRequests {
  /** What one reconcile step changed. */
  record RequestDelta(int requested, int cancelled, int localRequests, int localHosts) {
    public RequestDelta(int requested, int cancelled) {
      this(requested, cancelled, 0, 0);
    }

    public boolean changed() {
      return requested > 0 || cancelled > 0;
    }
  }

  /** Allocated containers split into those to launch and those to release at once. */
  record Assignment(List<Container> toLaunch, List<Container> surplus) {}

  /** What exists besides the requests: the driver's wishes and our containers. */
  record Demand(int targetExecutors, int running, int starting, int localityAwareTasks,
      Map<String, Integer> hostToLocalTaskCount, Map<String, Integer> containersPerHost) {
    public Demand {
      hostToLocalTaskCount = Map.copyOf(hostToLocalTaskCount);
      containersPerHost = Map.copyOf(containersPerHost);
    }
  }

  /** Outstanding asks: containers requested and neither allocated nor cancelled yet. */
  int pendingRequests();

  /**
   * Cancels requests whose placement no longer fits the hints, then adds or cancels so that
   * {@code pending + running + starting == target}.
   */
  RequestDelta reconcile(Demand demand);

  /**
   * Decides the fate of freshly allocated containers: while executors are still wanted
   * ({@code runningAndStarting < target}) a container is kept and its request removed; the rest
   * are surplus, to be released at once (the RM can hand out more than is still wanted because
   * it learns of cancellations only on the next heartbeat).
   *
   * @param runningAndStarting executors that exist or are being launched, before this batch
   */
  Assignment assign(List<Container> allocated, int targetExecutors, int runningAndStarting);
}
