package dev.tide.am.allocation;

import java.util.List;
import java.util.Map;

/**
 * Where new container requests should point. A strategy of its own so the allocator's reconcile
 * step stays the same whatever the placement; implementations are pure (no YARN calls, no
 * clock) and called on the allocator thread only.
 */
public interface ContainerPlacement {
  /**
   * What placement knows when new requests are made.
   *
   * @param newRequests how many requests to place
   * @param targetExecutors the driver's target (running + starting + requested)
   * @param tasksPerExecutor tasks one executor runs at once
   * @param localityAwareTasks pending tasks that have host preferences
   * @param hostToLocalTaskCount for each host (a YARN node name), pending tasks preferring it
   * @param containersPerHost for each host, our containers allocated there (starting or running)
   *     plus pending requests that name it
   */
  record Input(int newRequests, int targetExecutors, int tasksPerExecutor,
      int localityAwareTasks, Map<String, Integer> hostToLocalTaskCount,
      Map<String, Integer> containersPerHost) {
    public Input {
      hostToLocalTaskCount = Map.copyOf(hostToLocalTaskCount);
      containersPerHost = Map.copyOf(containersPerHost);
    }
  }

  /**
   * The hosts of each new request, exactly {@code input.newRequests()} entries; an empty list is
   * a request for any host.
   */
  List<List<String>> place(Input input);

  /**
   * Whether a pending request naming {@code requestHosts} no longer fits the current hints and
   * should be cancelled (and placed again). Requests for any host are never stale.
   */
  boolean isStale(List<String> requestHosts, Map<String, Integer> hostToLocalTaskCount);
}
