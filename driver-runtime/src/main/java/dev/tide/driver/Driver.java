package dev.tide.driver;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.AllocationSettings;
import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.JobArgs;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.StreamingJob;
import dev.tide.driver.job.TideJob;
import dev.tide.driver.jobs.BuiltInJobs;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.driver.streaming.StreamRunner;
import dev.tide.output.ApplicationLiveness;
import dev.tide.output.JobOutput;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcListener;
import dev.tide.rpc.RpcMessage;
import dev.tide.rpc.TaskOutcome;
import io.netty.channel.Channel;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver of one Tide application: runs the job named in its configuration, schedules its
 * tasks on executors that register over the authenticated RPC, and drives the allocation policy,
 * which talks to the cluster only through an {@link ExecutorAllocationClient}.
 *
 * <p>Lifecycle: {@link #start()} (RPC server up), then {@link #run()} (blocks until the job
 * ends), then {@link #close()}. The cluster side reports executor launches and exits through
 * {@link #executorLaunched} and {@link #executorExited}. Threading: one thread, the
 * {@link EventLoop}, owns all scheduling state; RPC callbacks and the public methods post work to
 * it.
 *
 * <p>The driver coordinates its parts on that thread: the {@link ExecutorRegistry} (launched and
 * registered executors, their channels and heartbeats), the {@code JobScheduler} (stages and task
 * assignment), the {@link PlanRunner} (a plan's output and end), the {@link MapOutputMigration}
 * (map outputs of nodes that leave) and, for a streaming job, the {@link StreamSession} (its
 * batches); itself it keeps the RPC, the tick, the batch allocation policy's evaluation, the
 * job's start and end and its status.
 */
public final class Driver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Driver.class);
  private static final long TICK_MILLIS = 100;
  /** The period of the driver's tick (the batch policy's evaluation, the status, the timeline). */
  private long tickMillis = TICK_MILLIS;
  private static final long TIMELINE_MILLIS = 1000;
  /**
   * The key under which the client names the application's staging directory in the job's
   * settings (the AM's {@code AmOptions.STAGING_APP_DIR_KEY}).
   */
  public static final String STAGING_APP_DIR_KEY = "tide.yarn.internal.stagingDir";
  /** A file in the staging directory that asks a stream to stop after its running batch. */
  public static final String STOP_MARKER = "STOP";

  private final Configuration conf;
  private final String appId;
  private final byte[] secret;
  private final ExecutorAllocationClient allocationClient;
  private final LongSupplier clock;
  private final EventLoop loop;
  private final RpcChannels rpc = new RpcChannels("tide-driver-rpc");
  private final CompletableFuture<JobResult> result = new CompletableFuture<>();
  /** The target asked of the cluster: the batch policy's, or a streaming policy's. */
  private final ExecutorTarget target;
  private final int maxAttempts;
  private final AtomicLong tasksSucceeded = new AtomicLong();
  /** Owned by the event loop (two sets in it are read from any thread). */
  private final ExecutorRegistry executors;
  /** Nodes being decommissioned, executors that drain, node state listeners. */
  private final LeavingNodes leaving = new LeavingNodes();
  /** What each executor does, as of the last change; read by the AM's allocator. */
  private volatile List<dev.tide.driver.scheduler.ExecutorActivity> activity = List.of();

  // Owned by the event loop.
  private JobScheduler scheduler;
  /** Runs the job's plans through the scheduler; made with it when the job starts. */
  private PlanRunner plans;
  private EventLog events = EventLog.disabled();
  private java.util.function.Consumer<dev.tide.driver.events.EventLine> eventListener;
  /** Tells whether the application that left an output directory behind still runs. */
  private volatile ApplicationLiveness liveness = ApplicationLiveness.UNKNOWN;
  private long lastTimelineMillis;
  /** What runs a streaming job's batches; null for a batch job. */
  private StreamSession stream;
  private volatile JobStatus status;
  /**
   * Keeps the map outputs of nodes that are decommissioned: copies them to nodes that stay and
   * moves their locations; hears of leaving nodes through {@link NodeMigration}.
   */
  private final MapOutputMigration migration;
  /** The delegation tokens sent last ({@link #updateTokens}); null before. Event loop. */
  private byte[] latestTokens;
  /** See {@link #showSubmissionSettings}. */
  private volatile List<dev.tide.conf.ConfigOption<?>> submissionSettings = List.of();

  public Driver(Configuration jobConf, String appId, byte[] secret,
      ExecutorAllocationClient allocationClient) {
    this(jobConf, appId, secret, allocationClient, System::currentTimeMillis);
  }

  public Driver(Configuration jobConf, String appId, byte[] secret,
      ExecutorAllocationClient allocationClient, LongSupplier clock) {
    this.conf = new Configuration(jobConf);
    this.appId = appId;
    this.secret = secret.clone();
    this.allocationClient = allocationClient;
    this.clock = clock;
    // The allocation client also reports the cluster's headroom (for rampUp=headroom).
    this.target = new ExecutorTarget(
        BatchAllocationPolicy.create(AllocationSettings.from(conf), allocationClient),
        allocationClient);
    this.maxAttempts = TideOptions.TASK_MAX_ATTEMPTS.get(conf);
    this.executors = new ExecutorRegistry(ExecutorHeartbeats.from(conf));
    this.loop = new EventLoop("tide-driver",
        t -> finish(JobResult.failure("driver error: " + ThrowableSummary.of(t))));
    this.status = new JobStatus(TideOptions.JOB.get(conf), 0, 2, 0, 0, 0, 0, 0, 0, 0f, "", "");
    this.migration = new MapOutputMigration(appId, secret, AppOptions.networkCryptoEnabled(conf),
        loop::post, () -> scheduler, executors::channels, clock,
        (event, keyValues) -> events.record(event, keyValues));
    leaving.addListener(new NodeMigration(migration.migrator(), leaving, clock));
  }

  /** Starts the RPC server; returns the address executors connect to. */
  public InetSocketAddress start() throws IOException {
    InetSocketAddress bound = rpc.listen(TideOptions.DRIVER_PORT.get(conf), appId, secret,
        new RpcListener() {
          @Override
          public void onMessage(Channel channel, RpcMessage message) {
            loop.post(() -> handle(channel, message));
          }

          @Override
          public void onClose(Channel channel) {
            loop.post(() -> channelClosed(channel));
          }
        }, AppOptions.networkCryptoEnabled(conf));
    LOG.info("Driver of {} listening for executors on port {}{}", appId, bound.getPort(),
        AppOptions.networkCryptoEnabled(conf) ? " (encrypted connections only)" : "");
    return bound;
  }

  /**
   * Hands every event of the application (the event log's, also when no log file is written)
   * to {@code listener}, on the driver's thread; call before {@link #run()}.
   */
  public void onEvent(java.util.function.Consumer<dev.tide.driver.events.EventLine> listener) {
    this.eventListener = listener;
  }

  /**
   * Settings of the submission that the UI's Overview shows after the job's own (the AM passes
   * its queue); the driver reads them from the job configuration with their defaults. Call
   * before {@link #run()}.
   */
  public void showSubmissionSettings(List<dev.tide.conf.ConfigOption<?>> options) {
    this.submissionSettings = List.copyOf(options);
  }

  /**
   * How to tell whether another application still runs: an output directory it left
   * uncommitted is deleted only when it does not (see {@link JobOutput}). Call before
   * {@link #run()}; without it such a directory is refused as existing output.
   */
  public void checkOutputOwnersWith(ApplicationLiveness liveness) {
    this.liveness = liveness;
  }

  /** Sets the tick's period (tests: a long one shows what happens without ticks). */
  void tickMillis(long millis) {
    this.tickMillis = millis;
  }

  /** Runs the job to its end; job failures are returned, not thrown. */
  public JobResult run() throws InterruptedException {
    loop.post(this::startJob);
    loop.every(tickMillis, this::tick);
    try {
      return result.get();
    } catch (ExecutionException e) {
      return JobResult.failure("driver error: " + e.getCause());
    }
  }

  /** A consistent snapshot; safe from any thread. */
  public JobStatus status() {
    return status;
  }

  /**
   * The cluster side launched an executor: it will register under {@code executorId}, and its
   * node's {@code tide_shuffle} service listens on {@code shufflePort}.
   */
  public void executorLaunched(String executorId, String host, int shufflePort) {
    executorLaunched(executorId, host, shufflePort, 0);
  }

  /**
   * As {@link #executorLaunched(String, String, int)}, {@code sinceAllocationMillis} after its
   * container was allocated: the start latency the batch policy plans with is measured from the
   * allocation to the registration.
   */
  public void executorLaunched(String executorId, String host, int shufflePort,
      long sinceAllocationMillis) {
    long allocatedAt = clock.getAsLong() - Math.max(0, sinceAllocationMillis);
    loop.post(() -> {
      executors.launched(executorId, host, shufflePort, allocatedAt);
      addIfReady(executorId);
    });
  }

  /**
   * True once this executor has registered over the authenticated RPC; stays true for that id,
   * also after the executor is gone. Unknown ids: false. Non-blocking; safe from any thread.
   */
  public boolean isExecutorRegistered(String executorId) {
    return executors.isRegistered(executorId);
  }

  /**
   * True once this launched or registered executor has gone: its connection closed, or the
   * cluster side reported its exit. Unknown ids: false. Non-blocking; safe from any thread.
   */
  public boolean isExecutorGone(String executorId) {
    return executors.isGone(executorId);
  }

  /**
   * How many task attempts have succeeded so far, in every plan: the application's progress as
   * the allocator's executor-failure limit sees it. Non-blocking; safe from any thread.
   */
  public long tasksSucceeded() {
    return tasksSucceeded.get();
  }

  /**
   * An executor's container ended. {@code failure} is true when it counts as an executor failure
   * (see DESIGN.md "Container outcome"); {@code diagnostics} says why it ended.
   */
  public void executorExited(String executorId, boolean failure, String diagnostics) {
    loop.post(() -> executorGone(executorId, (failure ? "failed: " : "exited: ") + diagnostics));
  }

  /**
   * Tells {@code listener} of nodes that leave the cluster ({@link NodeStateListener}); any
   * thread, before or while the job runs.
   */
  public void addNodeStateListener(NodeStateListener listener) {
    leaving.addListener(listener);
  }

  /**
   * The RM's name of the node the cluster side launched {@code executorId} on (the host, or
   * host:port with {@code yarn.scheduler.include-port-in-node-name}); node events name nodes so.
   * Any thread.
   */
  public void executorNode(String executorId, String node) {
    leaving.executorNode(executorId, node);
  }

  /**
   * Node {@code host} (the RM's node name) is being decommissioned and leaves at
   * {@code leavesAtMillis} (epoch ms; -1 when YARN set no timeout): its executors get no new
   * tasks, their running tasks may finish, then they are removed; the
   * {@link NodeStateListener}s hear of it. Any thread; returns at once.
   */
  public void onNodeDecommissioning(String host, long leavesAtMillis) {
    loop.post(() -> nodeDecommissioning(host, leavesAtMillis));
  }

  /**
   * Node {@code host} has gone (decommissioned, lost, unhealthy, shut down): the
   * {@link NodeStateListener}s hear of it; its executors' ends come from the cluster side as
   * for any executor. Any thread; returns at once.
   */
  public void onNodeLost(String host) {
    loop.post(() -> {
      LOG.info("Node {} has left the cluster", host);
      leaving.lost(host);
    });
  }

  /**
   * Node {@code host} runs again after a decommissioning was cancelled (recommissioned): new
   * executors there get tasks again. Any thread; returns at once.
   */
  public void onNodeRunning(String host) {
    loop.post(() -> {
      if (leaving.running(host)) {
        LOG.info("Node {} is no longer being decommissioned; new executors there get tasks",
            host);
      }
    });
  }

  /**
   * YARN takes the container of {@code executorId} back (preemption): it gets no new tasks, a
   * task that fails there from now on is rerun without counting against
   * {@code tide.task.maxAttempts} (it failed because its JVM is being stopped), and the
   * executor is removed once idle. The same holds for the executors of a decommissioning
   * node. Any thread; returns at once.
   */
  public void executorPreempted(String executorId, String why) {
    loop.post(() -> drain(List.of(executorId), "preempted: " + why));
  }

  /**
   * What each registered executor does now (running tasks, the latest one's start), as of the
   * last change. Any thread; never blocks.
   */
  public List<dev.tide.driver.scheduler.ExecutorActivity> executorActivity() {
    return activity;
  }

  /**
   * Fails the job from the cluster side (for example too many executor failures); {@link #run()}
   * then returns a failure carrying {@code diagnostics}.
   */
  public void abort(String diagnostics) {
    loop.post(() -> finish(JobResult.failure(diagnostics)));
  }

  /**
   * The application is being killed (its AM got SIGTERM): ends the job as killed, which deletes
   * the running plan's uncommitted output and records {@code jobEnd} with state killed, then
   * writes out and closes the event log. Returns at once; the future completes when that is
   * done, with false when the driver had already stopped. Does nothing to a job that has
   * already ended. Safe from any thread (a shutdown hook).
   */
  public CompletableFuture<Boolean> kill(String diagnostics) {
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    if (loop.isStopped()) {
      done.complete(false); // closed: the job has ended and its log is written
      return done;
    }
    loop.post(() -> {
      try {
        finish(JobResult.killed(diagnostics));
      } finally {
        events.close();
        done.complete(true);
      }
    });
    return done;
  }

  /**
   * Fresh delegation tokens (Hadoop token storage, see {@code RpcMessage.UpdateTokens}): sent to
   * every registered executor now and to each that registers later; a {@code tokensSent} event
   * records how many got them. Safe from any thread.
   */
  public void updateTokens(byte[] credentials) {
    byte[] copy = credentials.clone();
    loop.post(() -> {
      latestTokens = copy;
      int sent = 0;
      for (Channel channel : executors.channels()) {
        RpcChannels.send(channel, new RpcMessage.UpdateTokens(copy));
        sent++;
      }
      LOG.info("Sent fresh delegation tokens to {} executors", sent);
      events.record(EventName.TOKENS_SENT, "executors", sent);
    });
  }

  /** Records a cluster-side event in the application's event log (if one is configured). */
  public void logEvent(EventName event, Object... keyValues) {
    loop.post(() -> events.record(event, keyValues));
  }

  @Override
  public void close() {
    loop.post(() -> {
      for (Channel channel : executors.channels()) {
        RpcChannels.send(channel, new RpcMessage.Shutdown("application " + appId + " ended"));
      }
      events.close();
    });
    migration.close();
    loop.stop(Duration.ofSeconds(5));
    rpc.close();
  }

  private void startJob() {
    String jobName = TideOptions.JOB.get(conf);
    TideJob job;
    JobContext context;
    String eventDir = TideOptions.EVENT_LOG_ENABLED.get(conf)
        ? TideOptions.EVENT_LOG_DIR.get(conf) : "";
    try {
      events = EventLog.open(conf, eventDir, appId, clock);
      events.setListener(eventListener);
    } catch (IOException | RuntimeException e) {
      // The job does not depend on its event log.
      LOG.warn("Could not open the event log in {} ({}); the application runs without one",
          eventDir, e.toString());
      events.setListener(eventListener);
    }
    try {
      context = new JobContext(conf, JobArgs.decode(AppOptions.JOB_ARGS.get(conf)));
      job = BuiltInJobs.newJob(jobName);
    } catch (Exception | LinkageError e) {
      LOG.error("Job {} could not start", jobName, e);
      finish(JobResult.failure("job " + jobName + " could not start: "
          + (e instanceof LinkageError ? ThrowableSummary.of(e) : e.getMessage())));
      return;
    }
    AllocationSettings s = target.policy().settings();
    LOG.info("Job {}: {}", jobName, s.describe());
    events.record(EventName.JOB_START, "app", appId, "job", jobName, "user",
        JobStartFacts.currentUser());
    events.record(EventName.SETTINGS, JobStartFacts.settingsShown(conf, submissionSettings));
    scheduler = new JobScheduler(s.tasksPerExecutor(), maxAttempts,
        TideOptions.STAGE_MAX_CONSECUTIVE_ATTEMPTS.get(conf), clock, events);
    scheduler.speculation(dev.tide.driver.scheduler.SpeculationRule.from(conf));
    plans = new PlanRunner(conf, appId, () -> liveness, scheduler, events);
    for (String id : executors.registeredIds()) {
      addIfReady(id);
    }
    PlanSession session = new PlanSession(context,
        (plan, done) -> loop.post(() -> startPlan(plan, done)),
        (executors, within) -> loop.post(() -> expectWork(executors, within)));
    if (job instanceof StreamingJob streamingJob) {
      stream = new StreamSession(conf, scheduler, executors, events, clock, session,
          new StreamHost());
      try {
        stream.start();
      } catch (IllegalArgumentException e) {
        finish(JobResult.failure("job " + jobName + " could not start: " + e.getMessage()));
        return;
      }
      StreamRunner runner = new StreamRunner(streamingJob, stream.hooks());
      JobThread.start("tide-stream", jobName, runner::run, end -> loop.post(() -> finish(end)));
      return;
    }
    JobThread.start("tide-job", jobName, () -> {
      job.run(session);
      return "job " + jobName + " finished: " + plans.tasksOfPlans() + " tasks in "
          + session.plansRun() + (session.plansRun() == 1 ? " plan" : " plans");
    }, end -> loop.post(() -> finish(end)));
  }

  /** What a stream asks of the driver: the event loop, the executor target, removals. */
  private final class StreamHost implements StreamSession.Host {
    @Override
    public <T> T call(Supplier<T> work) throws InterruptedException {
      return loop.call(work);
    }

    @Override
    public int target() {
      return target.last();
    }

    @Override
    public void requestTarget(int executors) {
      target.request(executors);
    }

    @Override
    public void removeExecutors(List<String> executorIds, String why) {
      Driver.this.removeExecutors(executorIds, why);
    }

    @Override
    public void statusChanged() {
      updateStatus();
    }
  }

  /** On the event loop: starts the job's next plan, unless the application is ending. */
  private void startPlan(JobPlan next, CompletableFuture<String> done) {
    if (result.isDone()) {
      done.complete("the application is ending");
      return;
    }
    if (plans.start(next, done)) {
      afterChange();
    }
  }

  private void handle(Channel channel, RpcMessage message) {
    String from = executors.heardFrom(channel, clock.getAsLong());
    if (message instanceof RpcMessage.RegisterExecutor m) {
      register(channel, m);
    } else if (message instanceof RpcMessage.Heartbeat m) {
      // From an executor already removed (declared lost, say): it is ignored.
      LOG.debug("Heartbeat of executor {} ({}) running tasks {}", m.executorId(),
          from == null ? "not registered; ignored" : "registered", m.runningTaskIds());
    } else if (message instanceof RpcMessage.TaskStatus m) {
      if (scheduler != null && from != null) {
        String leavingWhy = leaving.drainReason(from);
        if (leavingWhy != null && m.outcome().state() != TaskOutcome.State.SUCCEEDED) {
          // YARN takes its container back or its node leaves: a task that fails there now
          // most likely failed because its JVM is being stopped; it is lost with the
          // executor, not counted (it reruns elsewhere, where failures count).
          executorGone(from, leavingWhy + " (a task there ended " + m.outcome().state()
              + " as it was leaving)");
          return;
        }
        if (m.outcome().state() == TaskOutcome.State.SUCCEEDED) {
          tasksSucceeded.incrementAndGet();
        }
        scheduler.taskEnded(m.outcome());
        afterChange();
      }
    } else {
      LOG.warn("Unexpected {} from {}; closing", message.getClass().getSimpleName(),
          channel.remoteAddress());
      channel.close();
    }
  }

  private void register(Channel channel, RpcMessage.RegisterExecutor m) {
    String id = m.executorId();
    String refusal = executors.refusal(id, result.isDone());
    if (refusal != null) {
      RpcChannels.send(channel, new RpcMessage.RegisterRejected(refusal));
      return;
    }
    executors.registered(id, channel, m.host(), clock.getAsLong());
    RpcChannels.send(channel, new RpcMessage.Registered(confBytes()));
    if (latestTokens != null) {
      // Launched with the tokens of its launch context, which may predate these.
      RpcChannels.send(channel, new RpcMessage.UpdateTokens(latestTokens));
    }
    LOG.info("Executor {} registered from {} ({} cores, {} ms after its JVM started)", id,
        m.host(), m.cores(), m.startupMillis());
    events.record(EventName.EXECUTOR_REGISTERED, "executor", id, "host", m.host(), "startupMs",
        m.startupMillis());
    addIfReady(id);
  }

  private void addIfReady(String id) {
    InetSocketAddress shuffle = executors.readyShuffleAddress(id);
    if (scheduler == null || shuffle == null) {
      return;
    }
    scheduler.executorAdded(id, shuffle.getHostString(), shuffle.getPort());
    Long allocatedAt = executors.added(id);
    if (allocatedAt != null) {
      // Allocation to registration: the start latency the batch policy plans with.
      target.policy().executorStarted(clock.getAsLong() - allocatedAt);
    }
    events.record(EventName.EXECUTOR_ADDED, "executor", id, "host", shuffle.getHostString(),
        "shufflePort", shuffle.getPort());
    // Marked draining before it was added (its node began to leave, or YARN asked for its
    // container, while it still started): the scheduler learns of it now.
    String node = leaving.nodeOf(id, shuffle.getHostString());
    String why = leaving.drainReason(id);
    if (why == null && leaving.isDecommissioning(node)) {
      why = "node " + node + " decommissioning";
    }
    if (why != null) {
      drain(List.of(id), why);
    }
    afterChange();
  }

  private void nodeDecommissioning(String node, long leavesAtMillis) {
    if (!leaving.decommissioning(node, leavesAtMillis)) {
      return;
    }
    List<String> on = leaving.on(node, executors.launchedHosts());
    LOG.warn("Node {} is being decommissioned ({}): its executors {} get no new tasks; their"
        + " running tasks may finish", node, leavesAtMillis < 0 ? "no timeout"
        : "leaves in " + Math.max(0, leavesAtMillis - clock.getAsLong()) / 1000 + " s", on);
    drain(on, "node " + node + " decommissioning");
  }

  /**
   * Executors that get no new tasks; each is removed, for {@code why} (the first reason given),
   * once idle. Those the scheduler does not have yet are drained when they are added.
   */
  private void drain(List<String> ids, String why) {
    leaving.drain(ids, why);
    if (scheduler != null && !ids.isEmpty()) {
      scheduler.drain(ids);
      removeIdleDraining();
      afterChange();
    }
  }

  /** Draining executors with nothing left to run are removed (their containers released). */
  private void removeIdleDraining() {
    if (scheduler == null) {
      return;
    }
    for (String id : scheduler.idleDraining()) {
      String why = leaving.drainReason(id);
      LOG.info("Removing executor {}: {}", id, why);
      removeExecutors(List.of(id), why == null ? "draining" : why);
    }
  }

  private void channelClosed(Channel channel) {
    String id = executors.channelClosed(channel);
    if (id != null) {
      String removedFor = executors.removalReason(id);
      executorGone(id, removedFor != null ? removedFor + "; it exited"
          : "its connection to the driver closed");
    }
  }

  private void executorGone(String id, String reason) {
    leaving.removed(id);
    if (executors.remove(id)) {
      LOG.info("Executor {} removed: {}", id, reason);
      events.record(EventName.EXECUTOR_REMOVED, "executor", id, "reason", reason);
    }
    if (scheduler != null) {
      scheduler.executorLost(id, reason);
      afterChange();
    }
  }

  private void tick() {
    if (result.isDone()) {
      return;
    }
    long now = clock.getAsLong();
    removeSilentExecutors(now);
    if (scheduler == null || (plans.plan() == null && stream == null && !target.expecting())) {
      return; // no demand to act on before the first plan starts or is announced
    }
    if (scheduler.findStragglers()) {
      afterChange(); // their speculative attempts go to free slots now
    }
    removeIdleDraining();
    if (!streamAllocates()) {
      evaluateBatchPolicy(now);
    }
    if (now - lastTimelineMillis >= TIMELINE_MILLIS) {
      lastTimelineMillis = now;
      events.record(EventName.TIMELINE, "target", target.last(), "executors",
          scheduler.activeExecutors(), "pendingTasks", scheduler.pendingTasks(), "runningTasks",
          scheduler.runningTasks());
    }
    updateStatus();
  }

  /**
   * Executors silent past tide.executor.heartbeatTimeout are lost: removed (their tasks run
   * again, what they send later is ignored) and their containers released, counted as failed.
   */
  private void removeSilentExecutors(long now) {
    for (ExecutorHeartbeats.Silent s : executors.expire(now)) {
      String reason = executors.reason(s);
      LOG.warn("Executor {} on {} lost: no heartbeat for {} s (more than {} = {} ms); releasing"
          + " its container and running its tasks again", s.executorId(), s.host(),
          ExecutorHeartbeats.silentSeconds(s), TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(),
          TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.get(conf).toMillis());
      executorGone(s.executorId(), reason);
      allocationClient.killLostExecutor(s.executorId(), "executor " + s.executorId() + " on "
          + s.host() + " " + reason);
    }
  }

  /** The job announced work ahead (JobSession.expect): the lookahead sees it from now. */
  private void expectWork(int executors, Duration within) {
    LOG.info("The job expects work for {} executors within {} ms", executors, within.toMillis());
    target.expect(executors, within.toMillis(), clock.getAsLong(), scheduler);
    if (!streamAllocates()) {
      evaluateBatchPolicy(clock.getAsLong());
    }
  }

  private void evaluateBatchPolicy(long now) {
    List<String> idle = target.evaluate(now, scheduler, executors.starting(), events);
    if (!idle.isEmpty()) {
      LOG.info("Removing idle executors {}", idle);
      removeExecutors(idle, "idle; removed by dynamic allocation");
    }
  }

  /** Marks executors pending-to-remove (no new tasks), tells them why, and kills them. */
  private void removeExecutors(List<String> ids, String why) {
    scheduler.markPendingRemoval(ids);
    for (String id : ids) {
      executors.removalRequested(id, why);
      events.record(EventName.EXECUTOR_IDLE_REMOVAL, "executor", id, "reason", why);
      // Told first, the executor exits 0 with this reason; otherwise the RM's completion of
      // the released container closes its connection and it would exit 1, "driver gone",
      // before the NodeManager's SIGTERM: a failed container in the NodeManager's log.
      Channel channel = executors.channel(id);
      if (channel != null) {
        RpcChannels.send(channel, new RpcMessage.Shutdown(why));
      }
    }
    allocationClient.killExecutors(ids);
  }

  private void afterChange() {
    if (scheduler == null || result.isDone()) {
      return;
    }
    for (JobScheduler.Assignment a : scheduler.assignTasks()) {
      Channel channel = executors.channel(a.executorId());
      RpcChannels.send(channel, new RpcMessage.LaunchTask(a.task()));
    }
    if (!streamAllocates() && (plans.plan() != null || stream != null)
        && target.newSubmissions(scheduler)) {
      // A stage was submitted: the policy sees its tasks now, not at the next tick (up to
      // 100 ms later), so a backlog's first request goes out at once.
      evaluateBatchPolicy(clock.getAsLong());
    }
    plans.endIfOver();
    updateStatus();
  }

  private void finish(JobResult jobResult) {
    if (result.isDone()) {
      return;
    }
    if (plans != null) {
      plans.endIfRunning(jobResult.succeeded() ? "the job ended" : jobResult.diagnostics());
    }
    LOG.info("Job {}: {}", jobResult.state().text(), jobResult.diagnostics());
    events.record(EventName.JOB_END, "succeeded", jobResult.succeeded(), "diagnostics",
        jobResult.diagnostics(), "state", jobResult.state().text());
    updateStatus();
    allocationClient.requestTotalExecutors(0, 0, Map.of());
    result.complete(jobResult);
  }

  /** Whether a streaming policy sizes the executors (the batch policy is then off). */
  private boolean streamAllocates() {
    return stream != null && stream.allocates();
  }

  private void updateStatus() {
    if (scheduler != null) {
      activity = List.copyOf(scheduler.executorActivity());
    }
    if (scheduler == null || (plans.plan() == null && stream == null)) {
      return;
    }
    JobPlan plan = plans.plan();
    int total = plan == null ? 0 : scheduler.tasksTotal();
    status = new JobStatus(plan == null ? TideOptions.JOB.get(conf) : plan.name(),
        plan == null ? 0 : scheduler.stageIndex(), plan == null ? 0 : scheduler.stageCount(),
        plan == null ? 0 : scheduler.tasksDone(), total,
        scheduler.pendingTasks(), scheduler.runningTasks(), scheduler.activeExecutors(),
        Math.max(target.last(), 0), total == 0 ? 0f : (float) scheduler.tasksDone() / total, "",
        stream == null ? "" : stream.line(), scheduler.damagedMapOutputs());
  }

  private byte[] confBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      conf.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
