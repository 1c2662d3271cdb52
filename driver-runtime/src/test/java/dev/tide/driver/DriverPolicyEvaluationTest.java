package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobArgs;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** When the driver's batch policy sees a submitted stage: at once, not at its next tick. */
class DriverPolicyEvaluationTest {
  @Test
  void aSubmittedStagesExecutorsAreAskedForAtOnceNotAtTheNextTick() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "4", "-mt", "20000")));
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    CompletableFuture<Integer> firstTarget = new CompletableFuture<>();
    Driver driver = new Driver(conf, "application_1_0001",
        "secret".getBytes(StandardCharsets.UTF_8), new ExecutorAllocationClient() {
          @Override
          public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
              Map<String, Integer> hostToLocalTaskCount) {
            firstTarget.complete(targetExecutors);
          }

          @Override
          public void killExecutors(Collection<String> executorIds) {}
        });
    // No tick within the test: only an evaluation at the stage's submission can ask.
    driver.tickMillis(3_600_000);
    try {
      driver.start();
      Thread run = new Thread(() -> {
        try {
          driver.run();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "driver-run");
      run.setDaemon(true);
      run.start();
      // Without an evaluation at the submission nothing is asked: this times out.
      assertEquals(4, firstTarget.get(20, TimeUnit.SECONDS),
          "the 4 map tasks' executors, in one request");
    } finally {
      driver.close();
    }
  }
}
