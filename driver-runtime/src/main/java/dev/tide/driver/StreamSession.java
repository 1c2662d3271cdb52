package dev.tide.driver;

import dev.tide.driver.alloc.IdleExecutor;
import dev.tide.driver.alloc.StreamingAllocationPolicy;
import dev.tide.driver.alloc.StreamingSettings;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.driver.streaming.StreamDriver;
import java.io.IOException;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of a streaming job: what runs its batches. Before each batch the streaming
 * allocation policy (when tide.streaming.dynamicAllocation is on) sets the executor target and
 * picks executors to remove; each batch's plan runs through the driver's {@link PlanSession};
 * the batches' progress goes to the event log and the job's status line.
 *
 * <p>Threading: the stream's own thread calls {@link #hooks()}; each hook hands its work to the
 * driver's event loop through {@link Host#call} and waits, so this class's state is only touched
 * on the event loop.
 */
final class StreamSession {
  private static final Logger LOG = LoggerFactory.getLogger(StreamSession.class);

  /** What the stream needs of the driver that runs it; every method but call on the event loop. */
  interface Host {
    /** Runs {@code work} on the event loop and waits for its result (from the stream's thread). */
    <T> T call(Supplier<T> work) throws InterruptedException;

    /** The executor target last asked for (-1: none yet). */
    int target();

    /** Asks the cluster for {@code target} executors in all (no locality). */
    void requestTarget(int target);

    /** Marks executors pending-to-remove, tells them {@code why} and kills them. */
    void removeExecutors(List<String> executorIds, String why);

    /** The stream's line or counts changed: the job's status is taken again. */
    void statusChanged();
  }

  private final Configuration conf;
  private final JobScheduler scheduler;
  private final ExecutorRegistry registry;
  private final EventLog events;
  private final LongSupplier clock;
  private final PlanSession session;
  private final Host host;
  /** The streaming policy when tide.streaming.dynamicAllocation is on; else null. */
  private StreamingAllocationPolicy streamingPolicy;
  private String streamLine = "";
  private String lastBatch = "";
  private long batchesDone;

  StreamSession(Configuration conf, JobScheduler scheduler, ExecutorRegistry registry,
      EventLog events, LongSupplier clock, PlanSession session, Host host) {
    this.conf = conf;
    this.scheduler = scheduler;
    this.registry = registry;
    this.events = events;
    this.clock = clock;
    this.session = session;
    this.host = host;
  }

  /** What the stream's runner calls, from its own thread. */
  StreamDriver hooks() {
    return new StreamHooks();
  }

  /** Whether the streaming policy sizes the executors (then the batch policy stays off). */
  boolean allocates() {
    return streamingPolicy != null;
  }

  /** The stream's part of the job's status: where its batches are. */
  String line() {
    return streamLine;
  }

  /** Batches completed so far. */
  long batchesDone() {
    return batchesDone;
  }

  /**
   * A streaming job: with tide.streaming.dynamicAllocation on, its policy replaces the batch
   * policy and the initial executors are asked for now, before the first batch.
   */
  void start() {
    StreamingSettings.checkNotBothEnabled(conf);
    StreamingSettings settings = StreamingSettings.from(conf);
    LOG.info("Streaming job: {}", settings.describe());
    streamLine = "waiting for the first batch";
    if (settings.enabled()) {
      streamingPolicy = StreamingAllocationPolicy.create(settings);
      host.requestTarget(settings.initialExecutors());
    }
  }

  /** The driver's side of a stream: each call runs on the event loop; the caller waits. */
  private final class StreamHooks implements StreamDriver {
    @Override
    public JobContext context() {
      return session.context();
    }

    @Override
    public long now() {
      return clock.getAsLong();
    }

    @Override
    public void batchSubmitted(long batchTime, long records, int waitingBatches,
        long waitingRecords) throws InterruptedException {
      host.call(() -> {
        sizeForBatch(batchTime, waitingBatches, waitingRecords);
        int lastTarget = host.target();
        events.record(EventName.BATCH_SUBMITTED, "batch", batchTime, "records", records,
            "waitingBatches", waitingBatches, "target", lastTarget);
        streamLine = "batch " + batchTime + " submitted, " + batchesDone + " done" + lastBatch;
        host.statusChanged();
        return null;
      });
    }

    @Override
    public void batchStarted(long batchTime, long schedulingDelayMillis)
        throws InterruptedException {
      host.call(() -> {
        events.record(EventName.BATCH_STARTED, "batch", batchTime, "schedulingDelayMs",
            schedulingDelayMillis);
        streamLine = "batch " + batchTime + " running, " + batchesDone + " done" + lastBatch;
        host.statusChanged();
        return null;
      });
    }

    @Override
    public PlanMeasure runPlan(JobPlan plan)
        throws JobSession.JobFailedException, InterruptedException {
      long[] before = host.call(() -> new long[] {scheduler == null ? 0 : scheduler.taskMillis(),
          registry.changes(), scheduler == null ? 0 : scheduler.activeExecutors()});
      session.run(plan);
      long[] after = host.call(() -> new long[] {scheduler.taskMillis(), registry.changes()});
      return new PlanMeasure((after[0] - before[0]) / 1000.0, (int) before[2],
          after[1] != before[1]);
    }

    @Override
    public void batchCompleted(StreamingAllocationPolicy.CompletedBatch batch)
        throws InterruptedException {
      host.call(() -> {
        batchesDone++;
        if (streamingPolicy != null) {
          streamingPolicy.batchCompleted(batch);
        }
        int executors = scheduler == null ? 0 : scheduler.activeExecutors();
        int lastTarget = host.target();
        LOG.info("Batch {} completed: {} records in {} ms (scheduling delay {} ms{}),"
            + " executors {} (target {})", batch.batchTimeMillis(), batch.records(),
            batch.processingMillis(), batch.schedulingDelayMillis(),
            batch.delayed() ? ", delayed" : "", executors, lastTarget);
        events.record(EventName.BATCH_COMPLETED, "batch", batch.batchTimeMillis(), "records",
            batch.records(), "processingMs", batch.processingMillis(), "schedulingDelayMs",
            batch.schedulingDelayMillis(), "delayed", batch.delayed(), "taskSeconds",
            Math.round(batch.taskSeconds() * 1000) / 1000.0, "executors", executors, "target",
            lastTarget);
        lastBatch = ", last " + batch.records() + " records in " + batch.processingMillis()
            + " ms (delay " + batch.schedulingDelayMillis() + " ms)";
        streamLine = batchesDone + " batches done" + lastBatch;
        host.statusChanged();
        return null;
      });
    }

    @Override
    public boolean stopRequested() {
      String staging = conf.get(Driver.STAGING_APP_DIR_KEY, "");
      if (staging.isEmpty()) {
        return false;
      }
      Path marker = new Path(staging, Driver.STOP_MARKER);
      try {
        return marker.getFileSystem(conf).exists(marker);
      } catch (IOException e) {
        LOG.warn("Could not check for the stop marker {}", marker, e);
        return false;
      }
    }
  }

  /**
   * Before a batch: the streaming policy (if on) sets the target; executors it removes are
   * chosen idle and without cached blocks first, marked pending-to-remove and killed.
   */
  private void sizeForBatch(long batchTime, int waitingBatches, long waitingRecords) {
    if (streamingPolicy == null || scheduler == null) {
      return;
    }
    int lastTarget = host.target();
    int executors = scheduler.activeExecutors();
    int starting = Math.max(0, lastTarget - executors);
    StreamingAllocationPolicy.Decision d = streamingPolicy.beforeBatch(
        new StreamingAllocationPolicy.BeforeBatch(clock.getAsLong(), batchTime, waitingBatches,
            waitingRecords, executors, starting, lastTarget));
    List<String> remove = new java.util.ArrayList<>();
    scheduler.idleExecutors().stream()
        .sorted(java.util.Comparator.comparing(IdleExecutor::hasCachedBlocks)
            .thenComparingLong(IdleExecutor::idleSinceMillis))
        .limit(d.remove())
        .forEach(e -> remove.add(e.executorId()));
    int target = d.target();
    if (target != lastTarget || !remove.isEmpty()) {
      LOG.info("Streaming allocation before batch {}: target {} -> {}{}: {}", batchTime,
          lastTarget, target, remove.isEmpty() ? "" : ", removing " + remove, d.reason());
      events.record(EventName.STREAMING_ALLOCATION, "batch", batchTime, "from", lastTarget, "target",
          target, "remove", remove.size(), "reason", d.reason());
    }
    if (target != lastTarget) {
      host.requestTarget(target);
    }
    if (!remove.isEmpty()) {
      host.removeExecutors(remove, "removed by streaming dynamic allocation");
    }
  }
}
