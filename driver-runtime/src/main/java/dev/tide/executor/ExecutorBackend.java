package dev.tide.executor;

import dev.tide.driver.rpc.RpcChannels;
import dev.tide.driver.rpc.RpcListener;
import dev.tide.driver.rpc.RpcMessage;
import dev.tide.driver.scheduler.TaskOutcome;
import dev.tide.shuffle.client.ShuffleClient;
import io.netty.channel.Channel;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor process's body: registers with the driver (retrying with backoff until the
 * registration timeout), runs the tasks it is sent on {@code cores} threads, reports how each
 * ended, and exits when the driver tells it to or is gone.
 */
public final class ExecutorBackend implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorBackend.class);

  /** Where and who this executor is. */
  public record Settings(String driverHost, int driverPort, String executorId, String appId,
      int cores, byte[] secret, List<Path> appLocalDirs, String host,
      long registrationTimeoutMillis) {}

  private final Settings settings;
  private final RpcChannels rpc;
  private ShuffleClient shuffleClient; // guarded by this; made when first needed
  private final ExecutorService tasks;
  private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
  private volatile TaskRunner runner;
  private volatile Channel channel;

  public ExecutorBackend(Settings settings) {
    this.settings = settings;
    this.rpc = new RpcChannels("tide-executor-rpc");
    AtomicInteger n = new AtomicInteger();
    this.tasks = Executors.newFixedThreadPool(settings.cores(), r -> {
      Thread t = new Thread(r, "tide-task-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Registers and serves until the end; returns the process exit code. */
  public int run() throws InterruptedException {
    try {
      channel = connectWithRetry();
    } catch (IOException e) {
      LOG.error("Executor {} could not register: {}", settings.executorId(), e.getMessage());
      return 1;
    }
    RpcChannels.send(channel, new RpcMessage.RegisterExecutor(settings.executorId(),
        settings.host(), settings.cores(), ExecutorMain.millisSinceJvmStart()));
    try {
      return exitCode.get();
    } catch (java.util.concurrent.ExecutionException e) {
      return 1;
    }
  }

  private Channel connectWithRetry() throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + settings.registrationTimeoutMillis();
    long backoff = 200;
    while (true) {
      try {
        return rpc.connect(settings.driverHost(), settings.driverPort(), settings.appId(),
            settings.secret(), new Listener(), 10_000);
      } catch (IOException e) {
        if (System.currentTimeMillis() + backoff > deadline) {
          throw new IOException(e.getMessage() + " (gave up after "
              + settings.registrationTimeoutMillis() + " ms)", e);
        }
        LOG.info("Driver not reachable yet ({}); retrying in {} ms", e.getMessage(), backoff);
        Thread.sleep(backoff); // backoff between connection attempts, not synchronization
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  private final class Listener implements RpcListener {
    @Override
    public void onMessage(Channel ch, RpcMessage message) {
      if (message instanceof RpcMessage.Registered m) {
        runner = new TaskRunner(readConf(m.jobConf()), settings.appLocalDirs(),
            ExecutorBackend.this::shuffleClient);
        LOG.info("Executor {} registered with the driver at {}:{}", settings.executorId(),
            settings.driverHost(), settings.driverPort());
      } else if (message instanceof RpcMessage.LaunchTask m) {
        TaskRunner current = runner;
        tasks.execute(() -> {
          LOG.info("Running task {} ({})", m.task().taskId(), m.task().describe());
          TaskOutcome outcome = current == null
              ? TaskOutcome.failed(m.task().taskId(), "executor not registered")
              : current.run(m.task());
          RpcChannels.send(ch, new RpcMessage.TaskStatus(outcome));
        });
      } else if (message instanceof RpcMessage.RegisterRejected m) {
        LOG.error("Driver refused executor {}: {}", settings.executorId(), m.reason());
        exitCode.complete(1);
      } else if (message instanceof RpcMessage.Shutdown m) {
        LOG.info("Driver asked executor {} to exit: {}", settings.executorId(), m.reason());
        exitCode.complete(0);
      } else {
        LOG.warn("Unexpected message {} from the driver", message);
      }
    }

    @Override
    public void onClose(Channel ch) {
      if (!exitCode.isDone()) {
        LOG.error("Driver at {}:{} is gone; executor {} exits", settings.driverHost(),
            settings.driverPort(), settings.executorId());
      }
      exitCode.complete(1);
    }
  }

  private static Configuration readConf(byte[] bytes) {
    Configuration conf = new Configuration(false);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      conf.readFields(in);
    } catch (IOException e) {
      throw new IllegalStateException("driver sent unreadable job settings", e);
    }
    return conf;
  }

  /**
   * The shuffle client, made by the first reduce task rather than at start, so that an executor
   * registers without setting up a second Netty client first.
   */
  private synchronized ShuffleClient shuffleClient() {
    if (shuffleClient == null) {
      shuffleClient = new ShuffleClient(settings.appId(), settings.secret());
    }
    return shuffleClient;
  }

  @Override
  public void close() {
    tasks.shutdownNow();
    synchronized (this) {
      if (shuffleClient != null) {
        shuffleClient.close();
      }
    }
    if (channel != null) {
      channel.close();
    }
    rpc.close();
  }
}
