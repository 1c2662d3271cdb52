package dev.tide.it;

import dev.tide.testing.Await;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;

/** A job submitted on another thread while the test watches its application (the web UI tests). */
final class BackgroundJob {
  private BackgroundJob() {}

  /** {@link Submitter#run} on another thread. */
  static CompletableFuture<JobRun> submit(Configuration conf, OutputStream echo,
      String... args) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return Submitter.run(conf, echo, args);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /**
   * The report of {@code job}'s application once it runs with its AM's tracking URL: the one
   * started since {@code since} (epoch ms; other test classes' applications may share the
   * cluster). Fails when the job ends first, or after 60 s.
   */
  static ApplicationReport awaitRunning(YarnClient yarn, CompletableFuture<JobRun> job,
      long since) {
    return Await.value(Duration.ofSeconds(60), "the application to run", () -> {
      for (ApplicationReport r : yarn.getApplications()) {
        if (r.getYarnApplicationState() == YarnApplicationState.RUNNING
            && r.getStartTime() >= since && r.getOriginalTrackingUrl() != null
            && r.getOriginalTrackingUrl().startsWith("http")) {
          return r;
        }
      }
      if (job.isDone()) {
        throw new AssertionError("the application never ran: " + job.get().output());
      }
      return null;
    });
  }
}
