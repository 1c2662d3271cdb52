package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobArgs;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.TideJob;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: an {@link Error} anywhere in the driver (the job's planning code on the job thread,
 * work on the event loop) ends the job at once as failed, with the cause; before, it ended only
 * the thread or the task that met it and the job waited forever.
 */
class DriverErrorsTest {
  /** A job whose planning meets a library clash. */
  public static final class ClashingJob implements TideJob {
    @Override
    public JobPlan plan(JobContext context) {
      throw new NoSuchMethodError("'void com.example.Lib.newer()'");
    }
  }

  @Test
  void anErrorInPlanningFailsTheJobWithItsCause() throws Exception {
    JobResult result = run(ClashingJob.class.getName(), List.of(), new NoAllocation());

    assertFalse(result.succeeded());
    assertTrue(result.diagnostics().contains("failed in its driver code:"
        + " java.lang.NoSuchMethodError: 'void com.example.Lib.newer()' (at "
        + ClashingJob.class.getName() + ".plan("), result.diagnostics());
  }

  @Test
  void anErrorOnTheEventLoopFailsTheJobWithItsCause() throws Exception {
    // The first request for executors is made on the driver's event loop, when the sleep job's
    // map stage is submitted.
    ExecutorAllocationClient broken = new NoAllocation() {
      @Override
      public void requestTotalExecutors(int target, int localityAwareTasks,
          Map<String, Integer> hostToLocalTaskCount) {
        if (target > 0) {
          throw new NoClassDefFoundError("org/example/Missing");
        }
      }
    };

    JobResult result = run("sleep", List.of("-m", "2", "-mt", "60000"), broken);

    assertFalse(result.succeeded());
    assertTrue(result.diagnostics().contains(
        "driver error: java.lang.NoClassDefFoundError: org/example/Missing"),
        result.diagnostics());
  }

  /** Runs the job on a driver with no executors; the result, within a bounded wait. */
  private static JobResult run(String job, List<String> args, ExecutorAllocationClient client)
      throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), job);
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(args));
    conf.setBoolean(TideOptions.EVENT_LOG_ENABLED.key(), false);
    Driver driver = new Driver(conf, "application_1_0001",
        "secret".getBytes(StandardCharsets.UTF_8), client);
    CompletableFuture<JobResult> result = new CompletableFuture<>();
    try {
      driver.start();
      Thread run = new Thread(() -> {
        try {
          result.complete(driver.run());
        } catch (Throwable t) {
          result.completeExceptionally(t);
        }
      }, "driver-run");
      run.setDaemon(true);
      run.start();
      // Without the fix the job never ends: this wait times out.
      return result.get(30, TimeUnit.SECONDS);
    } finally {
      driver.close();
    }
  }

  private static class NoAllocation implements ExecutorAllocationClient {
    @Override
    public void requestTotalExecutors(int target, int localityAwareTasks,
        Map<String, Integer> hostToLocalTaskCount) {}

    @Override
    public void killExecutors(Collection<String> executorIds) {}
  }
}
