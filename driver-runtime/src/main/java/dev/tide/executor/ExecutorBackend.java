package dev.tide.executor;

import dev.tide.app.AppOptions;
import dev.tide.app.UserClassLoader;
import dev.tide.network.HandshakeException;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcListener;
import dev.tide.rpc.RpcMessage;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import io.netty.channel.Channel;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
  /**
   * @param networkCrypto whether the driver RPC and shuffle connections are encrypted
   *     ({@code tide.network.crypto.enabled} of the application)
   */
  public record Settings(String driverHost, int driverPort, String executorId, String appId,
      int cores, byte[] secret, List<Path> appLocalDirs, String host,
      long registrationTimeoutMillis, boolean networkCrypto) {
    /** Settings of an executor whose connections are not encrypted. */
    public Settings(String driverHost, int driverPort, String executorId, String appId,
        int cores, byte[] secret, List<Path> appLocalDirs, String host,
        long registrationTimeoutMillis) {
      this(driverHost, driverPort, executorId, appId, cores, secret, appLocalDirs, host,
          registrationTimeoutMillis, false);
    }
  }

  private final Settings settings;
  private final RpcChannels rpc;
  private ShuffleClient shuffleClient; // guarded by this; made when first needed
  private final ExecutorService tasks;
  private final CompletableFuture<Exit> exit = new CompletableFuture<>();
  private final CompletableFuture<Void> registered = new CompletableFuture<>();
  private volatile TaskRunner runner;
  /** Where map outputs went since tasks were described (MAP_OUTPUTS_MOVED). */
  private final MovedMapOutputs movedOutputs = new MovedMapOutputs();
  /** The application's user classes ({@link UserClassLoader}); set with {@link #runner}. */
  private volatile ClassLoader userClasses;
  /** The job's {@code tide.executor.shuffle.connectRetries}; set with {@link #runner}. */
  private volatile int shuffleConnectRetries = ShuffleClientConfig.DEFAULT_CONNECT_RETRIES;
  private volatile Channel channel;
  /**
   * The task attempt each task thread runs now: who to blame for a {@link UserCodeExit}, and
   * what the heartbeats report as running.
   */
  private final Map<Thread, TaskDescription> taskThreads = new ConcurrentHashMap<>();
  /** Set when user code is ending the JVM: tasks the driver sends after that are not started. */
  private volatile boolean exiting;
  /**
   * Sends the heartbeats: a thread of its own, so tasks that keep every task thread busy do not
   * make a live executor look lost.
   */
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tide-heartbeat");
        t.setDaemon(true);
        return t;
      });

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

  /**
   * How the executor's work ended: the process exit code (0 when the driver told it to exit,
   * {@link #EXIT_OUT_OF_MEMORY} after a task ran out of heap, 1 otherwise) and a sentence for the
   * log that names the driver and the executor.
   */
  public record Exit(int code, String reason) {}

  /** Exit code after a task ran out of heap (Spark's executors use the same). */
  static final int EXIT_OUT_OF_MEMORY = 52;

  /**
   * Exit code after user code called {@code System.exit} or {@code Runtime.exit}
   * ({@link #userCodeExited}). Not the status the user passed, which the JVM does not reveal:
   * a status of its own lets the ApplicationMaster tell this exit from the executor's own and
   * from a crash, and spare the node.
   */
  static final int EXIT_USER_CODE = 58;

  /**
   * Reports an exit that user code started, while the JVM runs its shutdown hooks: the task
   * attempt whose thread called it (if a task's thread did) is reported to the driver as failed,
   * saying so, with the executor marked as exiting so that it gets no more tasks; then the
   * connection is closed. Waits at most {@code timeoutMillis} for the report to be written and
   * the connection closed: the driver learns of the exit from the closed connection anyway.
   * Tasks the driver sends from now on are not started. Returns the failure's text, for the log.
   */
  String userCodeExited(UserCodeExit userExit, long timeoutMillis) {
    exiting = true;
    TaskDescription task = taskThreads.get(userExit.thread());
    String text = userExit.describe(settings.executorId(),
        task == null ? null : task.describe());
    Channel ch = channel;
    if (ch == null || !ch.isActive()) {
      return text;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    if (task != null) {
      RpcChannels.send(ch, new RpcMessage.TaskStatus(new TaskOutcome(task.taskId(),
          TaskOutcome.State.FAILED, text, "", 0, false, 0, List.of(),
          Map.of(TaskOutcome.EXECUTOR_EXITING, 1L)))).awaitUninterruptibly(timeoutMillis);
    }
    ch.close().awaitUninterruptibly(Math.max(1,
        TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    return text;
  }

  /**
   * Registers and serves until the end. Registration covers connecting, authenticating and the
   * driver's {@code Registered} answer, retried with backoff (200 ms doubling to 5 s) until
   * {@code registrationTimeoutMillis}; a driver that refuses the application secret or the
   * executor is not retried. Never calls {@code System.exit}: {@link ExecutorMain} does, with the
   * returned code.
   */
  public Exit run() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
        settings.registrationTimeoutMillis());
    try {
      channel = connectWithRetry(deadline);
    } catch (IOException e) {
      return exitWith(1, "Executor " + settings.executorId() + " could not register with the"
          + " driver at " + driver() + ": " + e.getMessage());
    }
    RpcChannels.send(channel, new RpcMessage.RegisterExecutor(settings.executorId(),
        settings.host(), settings.cores(), ExecutorMain.millisSinceJvmStart()));
    try {
      CompletableFuture.anyOf(registered, exit)
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      return exit.get();
    } catch (TimeoutException e) {
      return exitWith(1, "Executor " + settings.executorId() + " gave up: the driver at "
          + driver() + " accepted the connection but did not answer the registration within "
          + settings.registrationTimeoutMillis() + " ms");
    } catch (ExecutionException e) {
      return exitWith(1, "Executor " + settings.executorId() + " failed: " + e.getCause());
    }
  }

  private Exit exitWith(int code, String reason) {
    if (exit.complete(new Exit(code, reason))) {
      if (code == 0) {
        LOG.info("{}", reason);
      } else {
        LOG.error("{}", reason);
      }
    }
    return exit.join(); // the first end wins
  }

  private String driver() {
    return settings.driverHost() + ":" + settings.driverPort();
  }

  private Channel connectWithRetry(long deadline) throws IOException, InterruptedException {
    long backoff = 200;
    int attempts = 0;
    while (true) {
      attempts++;
      // One attempt never outlasts the registration timeout (at least 1 ms, Netty needs > 0).
      long attemptMillis = Math.max(1, Math.min(10_000,
          TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      Listener listener = new Listener();
      try {
        Channel ch = rpc.connect(settings.driverHost(), settings.driverPort(), settings.appId(),
            settings.secret(), listener, attemptMillis, settings.networkCrypto());
        listener.authenticated(ch);
        return ch;
      } catch (IOException e) {
        if (e.getCause() instanceof HandshakeException h && h.rejected()) {
          // The driver knows its secret from the start: asking again cannot succeed.
          throw new IOException("the driver refused this executor's credentials (" + e.getMessage()
              + "); not retrying", e);
        }
        long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remainingMillis <= 0) {
          throw new IOException("no driver answered within tide.executor.registrationTimeout = "
              + settings.registrationTimeoutMillis() + " ms (" + attempts + " attempts; last: "
              + e.getMessage() + ")", e);
        }
        long pause = Math.min(backoff, remainingMillis); // the last attempt comes at the deadline
        LOG.info("Driver not reachable yet ({}); retrying in {} ms", e.getMessage(), pause);
        Thread.sleep(pause); // backoff between connection attempts, not synchronization
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  /** One per connection attempt; only an authenticated connection's end means "driver gone". */
  private final class Listener implements RpcListener {
    private volatile boolean authenticated;

    /**
     * The handshake of {@code ch} succeeded. A close seen before this call was ignored by
     * {@link #onClose}, but then {@code ch} is no longer active, so it is caught here.
     */
    void authenticated(Channel ch) {
      authenticated = true;
      if (!ch.isActive()) {
        driverGone();
      }
    }

    private void driverGone() {
      // While user code ends the JVM, the hook closes the connection: main must not return
      // (and close the connection's threads) before the hook halts.
      if (!exit.isDone() && !exiting) {
        exitWith(1, "The driver at " + driver() + " is gone (its connection closed); executor "
            + settings.executorId() + " exits");
      }
    }

    @Override
    public void onMessage(Channel ch, RpcMessage message) {
      if (message instanceof RpcMessage.Registered m) {
        Configuration jobConf = readConf(m.jobConf());
        try {
          userClasses = UserClassLoader.forContainer(jobConf, new File("").getAbsoluteFile(),
              ExecutorBackend.class.getClassLoader());
        } catch (IOException e) {
          exitWith(1, "Executor " + settings.executorId() + " cannot load the job's classes: "
              + e.getMessage());
          return;
        }
        shuffleConnectRetries = ExecutorOptions.SHUFFLE_CONNECT_RETRIES.get(jobConf);
        runner = new TaskRunner(jobConf, settings.appLocalDirs(),
            ExecutorBackend.this::shuffleClient, movedOutputs);
        registered.complete(null);
        long interval = AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.get(jobConf).toMillis();
        heartbeats.scheduleAtFixedRate(() -> RpcChannels.send(ch, new RpcMessage.Heartbeat(
            settings.executorId(), runningTaskIds())), interval, interval,
            TimeUnit.MILLISECONDS);
        LOG.info("Executor {} registered with the driver at {}; heartbeats every {} ms",
            settings.executorId(), driver(), interval);
      } else if (message instanceof RpcMessage.LaunchTask m) {
        TaskRunner current = runner;
        ClassLoader classes = userClasses;
        tasks.execute(() -> {
          if (exiting) { // the driver hears of its end when the connection closes
            LOG.info("Not starting task {}: user code is ending this executor",
                m.task().describe());
            return;
          }
          // Mappers and reducers are made with the context class loader.
          if (classes != null) {
            Thread.currentThread().setContextClassLoader(classes);
          }
          LOG.info("Running task {} ({})", m.task().taskId(), m.task().describe());
          taskThreads.put(Thread.currentThread(), m.task());
          TaskOutcome outcome;
          try {
            outcome = current == null
                ? TaskOutcome.failed(m.task().taskId(), "executor not registered")
                : current.run(m.task());
          } finally {
            taskThreads.remove(Thread.currentThread());
          }
          RpcChannels.send(ch, new RpcMessage.TaskStatus(outcome)).addListener(sent -> {
            if (current != null && current.ranOutOfMemory()) {
              exitWith(EXIT_OUT_OF_MEMORY, "Executor " + settings.executorId() + " ran out of"
                  + " memory in task " + m.task().describe() + "; it exits so that a fresh"
                  + " executor replaces it");
            }
          });
        });
      } else if (message instanceof RpcMessage.UpdateTokens m) {
        addTokens(m.credentials());
      } else if (message instanceof RpcMessage.MapOutputsMoved m) {
        movedOutputs.moved(m.shuffleId(), m.moved());
        LOG.info("{} map outputs of shuffle {} moved (their node leaves): fetched from {} from"
            + " now on", m.moved().size(), m.shuffleId(), m.moved().isEmpty() ? "-"
            : m.moved().get(0).host() + ":" + m.moved().get(0).shufflePort());
      } else if (message instanceof RpcMessage.RegisterRejected m) {
        exitWith(1, "The driver at " + driver() + " refused executor " + settings.executorId()
            + ": " + m.reason());
      } else if (message instanceof RpcMessage.Shutdown m) {
        exitWith(0, "The driver asked executor " + settings.executorId() + " to exit: "
            + m.reason());
      } else {
        LOG.warn("Unexpected message {} from the driver", message);
      }
    }

    /**
     * Fresh delegation tokens from the driver: added to this JVM's Hadoop user, replacing those
     * of the same services, so that the tasks' FileSystem calls use them from now on.
     */
    private void addTokens(byte[] storage) {
      try {
        org.apache.hadoop.security.Credentials credentials =
            new org.apache.hadoop.security.Credentials();
        credentials.readTokenStorageStream(new java.io.DataInputStream(
            new java.io.ByteArrayInputStream(storage)));
        org.apache.hadoop.security.UserGroupInformation.getCurrentUser()
            .addCredentials(credentials);
        LOG.info("Executor {} got {} fresh delegation tokens: {}", settings.executorId(),
            credentials.numberOfTokens(), credentials.getAllTokens().stream()
                .map(t -> t.getKind() + " for " + t.getService()).toList());
      } catch (IOException | RuntimeException e) {
        LOG.warn("Executor {} cannot read the delegation tokens the driver sent; it keeps its"
            + " old ones", settings.executorId(), e);
      }
    }

    @Override
    public void onClose(Channel ch) {
      // A failed attempt's channel also ends here; connectWithRetry handles those.
      if (authenticated) {
        driverGone();
      }
    }
  }

  /** The ids of the task attempts running now. */
  private List<Long> runningTaskIds() {
    return taskThreads.values().stream().map(TaskDescription::taskId).toList();
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
      shuffleClient = new ShuffleClient(settings.appId(), settings.secret(),
          ShuffleClientConfig.DEFAULTS.withConnectRetries(shuffleConnectRetries,
              ShuffleClientConfig.DEFAULT_CONNECT_BACKOFF)
              .withEncryption(settings.networkCrypto()));
    }
    return shuffleClient;
  }

  @Override
  public void close() {
    heartbeats.shutdownNow();
    tasks.shutdownNow();
    if (userClasses instanceof java.io.Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        LOG.debug("Closing the user class loader", e);
      }
    }
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
