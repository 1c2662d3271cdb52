package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobArgs;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** When the driver's batch policy sees a submitted stage: at once, not at its next tick. */
class DriverPolicyEvaluationTest {
  @Test
  void aSubmittedStagesExecutorsAreAskedForAtOnceNotAtTheNextTick() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(TideOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "4", "-mt", "20000")));
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    List<Integer> targets = new CopyOnWriteArrayList<>();
    Driver driver = new Driver(conf, "application_1_0001",
        "secret".getBytes(StandardCharsets.UTF_8), new ExecutorAllocationClient() {
          @Override
          public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
              Map<String, Integer> hostToLocalTaskCount) {
            targets.add(targetExecutors);
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
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (targets.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(10); // polling interval of a deadline-bounded wait
      }
      assertTrue(!targets.isEmpty(), "no executors asked for the 4 map tasks");
      assertEquals(4, targets.get(0), "the 4 map tasks' executors, in one request");
    } finally {
      driver.close();
    }
  }
}
