package dev.tide.driver;

import dev.tide.driver.alloc.ExecutorAllocationClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;

/**
 * The driver of one Tide application: runs the job named in its configuration, schedules its
 * tasks on executors that register over the authenticated RPC, and drives the allocation policy,
 * which talks to the cluster only through an {@link ExecutorAllocationClient}.
 *
 * <p>Lifecycle: {@link #start()} (RPC server up), then {@link #run()} (blocks until the job
 * ends), then {@link #close()}. The cluster side reports executor launches and exits through
 * {@link #executorLaunched} and {@link #executorExited}; both are thread-safe.
 */
public final class Driver implements AutoCloseable {
  // TODO(lead): implementation in progress; signatures are the contract with am/.
  public Driver(Configuration jobConf, String appId, byte[] secret,
      ExecutorAllocationClient allocationClient) {
    throw new UnsupportedOperationException();
  }

  /** Starts the RPC server; returns the address executors connect to. */
  public InetSocketAddress start() throws IOException {
    throw new UnsupportedOperationException();
  }

  /** Runs the job to its end; job failures are returned, not thrown. */
  public JobResult run() throws InterruptedException {
    throw new UnsupportedOperationException();
  }

  /** A consistent snapshot; safe from any thread. */
  public JobStatus status() {
    throw new UnsupportedOperationException();
  }

  /**
   * The cluster side launched an executor: it will register under {@code executorId}, and its
   * node's {@code tide_shuffle} service listens on {@code shufflePort}.
   */
  public void executorLaunched(String executorId, String host, int shufflePort) {
    throw new UnsupportedOperationException();
  }

  /**
   * An executor's container ended. {@code failure} is true when it counts as an executor failure
   * (see DESIGN.md "Container outcome"); {@code diagnostics} says why it ended.
   */
  public void executorExited(String executorId, boolean failure, String diagnostics) {
    throw new UnsupportedOperationException();
  }

  /**
   * Fails the job from the cluster side (for example too many executor failures); {@link #run()}
   * then returns a failure carrying {@code diagnostics}.
   */
  public void abort(String diagnostics) {
    throw new UnsupportedOperationException();
  }

  /** Records a cluster-side event in the application's event log (if one is configured). */
  public void logEvent(String event, String... keyValues) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}
}
