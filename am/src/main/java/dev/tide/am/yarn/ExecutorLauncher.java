package dev.tide.am.yarn;

import dev.tide.shuffle.ShuffleServiceMetadata;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts executor containers on a small pool of launcher threads, since
 * {@code NMClient.startContainer} blocks on an RPC to the NodeManager. Each launch ends with
 * exactly one {@link LaunchResult} handed to the callback, on the launcher thread; the allocator
 * re-posts it to its own thread.
 *
 * <p>Thread-safe. The pool is owned by the caller.
 */
public final class ExecutorLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorLauncher.class);

  /** Starts one container and returns the aux services' metadata ({@code NMClient} in prod). */
  @FunctionalInterface
  public interface ContainerStarter {
    Map<String, ByteBuffer> startContainer(Container container, ContainerLaunchContext context)
        throws Exception;
  }

  /** How one launch ended. */
  public sealed interface LaunchResult permits Launched, LaunchFailed {
    String executorId();

    Container container();
  }

  /** The container runs the executor; its node's shuffle service listens on the port. */
  public record Launched(String executorId, Container container, int shufflePort)
      implements LaunchResult {}

  /** The container could not be started; the allocator releases it and counts a failure. */
  public record LaunchFailed(String executorId, Container container, String diagnostics)
      implements LaunchResult {}

  private final ExecutorLaunchContexts contexts;
  private final ContainerStarter starter;
  private final ExecutorService pool;
  private final ToIntFunction<ByteBuffer> shufflePortDecoder;

  public ExecutorLauncher(ExecutorLaunchContexts contexts, ContainerStarter starter,
      ExecutorService pool) {
    this(contexts, starter, pool, ShuffleServiceMetadata::decodePort);
  }

  /** @param shufflePortDecoder reads the port from the aux service's metadata (tests) */
  ExecutorLauncher(ExecutorLaunchContexts contexts, ContainerStarter starter,
      ExecutorService pool, ToIntFunction<ByteBuffer> shufflePortDecoder) {
    this.contexts = contexts;
    this.starter = starter;
    this.pool = pool;
    this.shufflePortDecoder = shufflePortDecoder;
  }

  /** Starts the executor asynchronously; {@code onDone} receives the result exactly once. */
  public void launch(String executorId, Container container, Consumer<LaunchResult> onDone) {
    try {
      pool.execute(() -> onDone.accept(launchNow(executorId, container)));
    } catch (RejectedExecutionException e) {
      onDone.accept(new LaunchFailed(executorId, container,
          "launcher is shut down; executor " + executorId + " not started"));
    }
  }

  LaunchResult launchNow(String executorId, Container container) {
    String host = container.getNodeId().getHost();
    Map<String, ByteBuffer> metadata;
    try {
      metadata = starter.startContainer(container, contexts.create(executorId));
    } catch (Exception e) {
      LOG.warn("Cannot start executor {} in container {} on {}", executorId, container.getId(),
          container.getNodeId(), e);
      return new LaunchFailed(executorId, container, "cannot start container "
          + container.getId() + " on " + container.getNodeId() + ": " + e);
    }
    ByteBuffer shuffleMeta = metadata == null ? null
        : metadata.get(ShuffleServiceMetadata.SERVICE_NAME);
    if (shuffleMeta == null) {
      return new LaunchFailed(executorId, container, "node " + container.getNodeId()
          + " returned no metadata for aux service " + ShuffleServiceMetadata.SERVICE_NAME
          + "; is it configured in yarn.nodemanager.aux-services there?");
    }
    int port;
    try {
      port = shufflePortDecoder.applyAsInt(shuffleMeta.duplicate());
    } catch (RuntimeException e) {
      return new LaunchFailed(executorId, container, "bad " + ShuffleServiceMetadata.SERVICE_NAME
          + " metadata from node " + container.getNodeId() + ": " + e.getMessage());
    }
    LOG.debug("Started executor {} in container {} on {} (shuffle port {})", executorId,
        container.getId(), host, port);
    return new Launched(executorId, container, port);
  }
}
