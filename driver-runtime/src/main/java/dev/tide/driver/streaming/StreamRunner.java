package dev.tide.driver.streaming;

import dev.tide.driver.alloc.StreamingAllocationPolicy.CompletedBatch;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession.JobFailedException;
import dev.tide.driver.job.StreamSource;
import dev.tide.driver.job.StreamingJob;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link StreamingJob} on the driver's job thread: one batch at a time, at times that are
 * multiples of the batch interval. Each batch is logged ({@link BatchLog}) before it runs and
 * its output is committed by renaming {@code <output>/_batch-<time>.inprogress} to
 * {@code <output>/batch-<time>}; a batch whose output exists is done. On start, logged batches
 * without output run again with the input they took, then the source continues after them.
 */
public final class StreamRunner {
  private static final Logger LOG = LoggerFactory.getLogger(StreamRunner.class);
  static final String BATCH_PREFIX = "batch-";
  private static final long POLL_MILLIS = 50;
  private static final long STOP_CHECK_MILLIS = 500;

  private final StreamingJob job;
  private final StreamDriver driver;
  private final Configuration conf;
  private final long intervalMillis;
  private final long stopAfterMillis;
  private long batches;
  private long records;
  private long previousEndMillis = Long.MIN_VALUE;
  private long lastStopCheck;
  private boolean stopRequested;

  public StreamRunner(StreamingJob job, StreamDriver driver) {
    this.job = job;
    this.driver = driver;
    this.conf = driver.context().conf();
    this.intervalMillis = TideOptions.STREAMING_BATCH_INTERVAL.get(conf).toMillis();
    this.stopAfterMillis = TideOptions.STREAMING_STOP_AFTER.get(conf).toMillis();
  }

  /** The default checkpoint directory: {@code <output>/_checkpoint}. */
  public static String checkpointDir(Configuration conf, String output) {
    String configured = TideOptions.STREAMING_CHECKPOINT_DIR.get(conf);
    return configured.isBlank() ? new Path(output, "_checkpoint").toString() : configured;
  }

  /** Runs batches until the stream is stopped; returns a one-line summary. */
  public String run() throws Exception {
    String output = job.outputPath(driver.context());
    StreamSource source = job.source(driver.context());
    BatchLog log = BatchLog.open(conf, checkpointDir(conf, output));
    List<StreamSource.Batch> logged = log.readAll();
    source.restore(logged);
    Path root = new Path(output);
    FileSystem fs = root.getFileSystem(conf);
    fs.mkdirs(root);
    long start = driver.now();
    int rerun = 0;
    for (StreamSource.Batch batch : logged) {
      if (!fs.exists(batchDir(root, batch.timeMillis()))) {
        LOG.info("Batch {} was logged by an earlier run but not committed: running it again",
            batch.timeMillis());
        rerun++;
        runBatch(batch, source, fs, root, driver.now());
      }
    }
    LOG.info("Stream {}: interval {} ms, checkpoint {}, {} batches logged before ({} rerun)",
        output, intervalMillis, log.dir(), logged.size(), rerun);
    long lastLogged = logged.isEmpty() ? Long.MIN_VALUE
        : logged.get(logged.size() - 1).timeMillis();
    long next = Math.max(alignUp(driver.now() + 1), lastLogged == Long.MIN_VALUE
        ? Long.MIN_VALUE : lastLogged + intervalMillis);
    while (true) {
      if (!waitUntil(next, start)) {
        break;
      }
      long taken = driver.now();
      StreamSource.Batch batch = source.take(next);
      log.write(batch);
      runBatch(batch, source, fs, root, taken);
      next += intervalMillis;
    }
    return "stream " + job.getClass().getSimpleName() + " stopped after " + batches
        + " batches, " + records + " records";
  }

  /** Waits until {@code time}; false when the stream should stop instead. */
  private boolean waitUntil(long time, long start) throws InterruptedException {
    while (true) {
      long now = driver.now();
      if (stopAfterMillis > 0 && now - start >= stopAfterMillis) {
        LOG.info("Stopping the stream: tide.streaming.stopAfter ({} ms) has passed",
            stopAfterMillis);
        return false;
      }
      if (stopRequested(now)) {
        LOG.info("Stopping the stream: a graceful stop was asked for");
        return false;
      }
      if (now >= time) {
        return true;
      }
      driver.pause(Duration.ofMillis(Math.min(POLL_MILLIS, time - now)));
    }
  }

  private boolean stopRequested(long now) {
    if (!stopRequested && now - lastStopCheck >= STOP_CHECK_MILLIS) {
      lastStopCheck = now;
      stopRequested = driver.stopRequested();
    }
    return stopRequested;
  }

  /**
   * Runs one batch; {@code started} is when the runner began it (before it took and logged its
   * input): its processing time counts from there, its scheduling delay up to there.
   */
  private void runBatch(StreamSource.Batch batch, StreamSource source, FileSystem fs, Path root,
      long started) throws Exception {
    long time = batch.timeMillis();
    long now = driver.now();
    int waiting = 1 + (int) Math.max(0, (now - time) / intervalMillis);
    long more = source.waitingRecords(now);
    driver.batchSubmitted(time, batch.records(), waiting,
        more < 0 ? -1 : more + batch.records());
    long schedulingDelay = Math.max(0, started - time);
    boolean waited = previousEndMillis > time;
    driver.batchStarted(time, schedulingDelay);
    StreamDriver.PlanMeasure measure = StreamDriver.PlanMeasure.NONE;
    int widestStage = 0;
    Path done = batchDir(root, time);
    if (!batch.splits().isEmpty() && !fs.exists(done)) {
      Path inProgress = new Path(root, "_" + BATCH_PREFIX + time + ".inprogress");
      fs.delete(inProgress, true); // what an earlier attempt of this batch left
      JobPlan plan = job.batchPlan(driver.context(), batch, inProgress.toString());
      for (JobPlan.Stage stage : plan.stages()) {
        widestStage = Math.max(widestStage, stage.tasks());
      }
      try {
        measure = driver.runPlan(plan);
      } catch (JobFailedException e) {
        throw failed(time, e.getMessage());
      }
      if (!fs.rename(inProgress, done)) {
        throw new IOException("could not commit batch " + time + ": rename of " + inProgress
            + " to " + done + " failed");
      }
    }
    long ended = driver.now();
    previousEndMillis = ended;
    long processing = ended - started;
    batches++;
    records += batch.records();
    driver.batchCompleted(new CompletedBatch(time, batch.records(), processing, schedulingDelay,
        waited || processing > intervalMillis, measure.taskSeconds(), measure.executorsAtStart(),
        measure.executorsChanged(), widestStage));
  }

  static Path batchDir(Path root, long time) {
    return new Path(root, BATCH_PREFIX + time);
  }

  private long alignUp(long millis) {
    return ((millis + intervalMillis - 1) / intervalMillis) * intervalMillis;
  }

  /** Thrown through the job thread when a batch fails; the job fails with it. */
  static JobFailedException failed(long time, String why) {
    return new JobFailedException("batch " + time + " failed: " + why);
  }
}
