package dev.tide.driver;

/**
 * Hears of nodes leaving the cluster, as the ResourceManager reports them to the AM: a node
 * being decommissioned gracefully (it leaves at a known time, its running tasks may finish),
 * and a node gone (decommissioned, lost, unhealthy or shut down: what it served is gone with
 * it). Registered with {@link Driver#addNodeStateListener}; for example the component that
 * moves map outputs off a decommissioning node.
 *
 * <p>Nodes are named as the ResourceManager names them: the host, or {@code host:port} when
 * {@code yarn.scheduler.include-port-in-node-name} is on (several NodeManagers on one host).
 *
 * <p>Threading: called on the driver's event loop, once per change of a node; implementations
 * must return quickly (hand long work to a thread of their own) and must not block on the
 * driver. An exception is logged and does not reach other listeners.
 */
public interface NodeStateListener {
  /**
   * Node {@code host} is being decommissioned: it gets no new executors nor tasks and leaves at
   * {@code leavesAtMillis} (epoch milliseconds of the driver's clock), or -1 when YARN set no
   * timeout (it leaves when its applications' containers are done).
   */
  void decommissioning(String host, long leavesAtMillis);

  /** Node {@code host} has gone: decommissioned, lost, unhealthy or shut down. */
  void lost(String host);
}
