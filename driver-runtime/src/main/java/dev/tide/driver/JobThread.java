package dev.tide.driver;

import dev.tide.driver.job.JobSession;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that runs a job's own code (its plans in turn, or a stream's batches) and then
 * hands the job's result to the driver: success with what the code returned, or failure with
 * why, for anything it throws, errors too.
 */
final class JobThread {
  private static final Logger LOG = LoggerFactory.getLogger(JobThread.class);

  /** What a job thread runs: the job's code, returning how it succeeded. */
  interface Body {
    String run() throws Exception;
  }

  private JobThread() {}

  /** Starts a daemon thread {@code threadName} running {@code body}, then {@code ended}. */
  static void start(String threadName, String jobName, Body body, Consumer<JobResult> ended) {
    Thread thread = new Thread(() -> ended.accept(run(jobName, body)), threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs {@code body} on the calling thread; returns the job's result. */
  static JobResult run(String jobName, Body body) {
    try {
      return JobResult.success(body.run());
    } catch (JobSession.JobFailedException e) {
      return JobResult.failure(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return JobResult.failure("job " + jobName + " was interrupted");
    } catch (Throwable t) {
      // Errors too: a NoSuchMethodError from a user jar's library clash must end the job at
      // once, with the cause in YARN's diagnostics, not leave it "planning" until killed.
      LOG.error("Job {} failed in its driver code", jobName, t);
      return JobResult.failure("job " + jobName + " failed in its driver code: "
          + ThrowableSummary.of(t));
    }
  }
}
