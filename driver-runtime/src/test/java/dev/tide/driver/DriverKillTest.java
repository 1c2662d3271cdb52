package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.job.JobArgs;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed application's driver (its AM got SIGTERM): the job ends as killed, leaving no debris. */
class DriverKillTest {
  @Test
  void killEndsTheJobAsKilledDeletesItsOutputAndEndsTheEventLog(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out");
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "2", "-mt", "600000",
        "-o", out.toUri().toString())));
    conf.set(TideOptions.EVENT_LOG_DIR.key(), dir.resolve("events").toUri().toString());
    CompletableFuture<Integer> planRuns = new CompletableFuture<>();
    Driver driver = new Driver(conf, "application_1_0001",
        "secret".getBytes(StandardCharsets.UTF_8), new ExecutorAllocationClient() {
          @Override
          public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
              Map<String, Integer> hostToLocalTaskCount) {
            planRuns.complete(targetExecutors);
          }

          @Override
          public void killExecutors(Collection<String> executorIds) {}
        });
    try {
      driver.start();
      CompletableFuture<JobResult> result = new CompletableFuture<>();
      Thread run = new Thread(() -> {
        try {
          result.complete(driver.run());
        } catch (InterruptedException e) {
          result.completeExceptionally(e);
        }
      }, "driver-run");
      run.setDaemon(true);
      run.start();
      planRuns.get(20, TimeUnit.SECONDS);
      assertTrue(Files.isDirectory(out.resolve("_temporary")), "the plan's output is prepared");

      assertTrue(driver.kill("killed by the test").get(20, TimeUnit.SECONDS));

      JobResult end = result.get(20, TimeUnit.SECONDS);
      assertEquals(dev.tide.driver.events.JobEndState.KILLED, end.state());
      assertFalse(end.succeeded());
      assertFalse(Files.exists(out), "the uncommitted output is deleted");
      List<EventLine> events;
      try (InputStream in = Files.newInputStream(dir.resolve("events")
          .resolve("application_1_0001.events"))) {
        events = EventLine.readAll(in);
      }
      EventLine last = events.get(events.size() - 1);
      assertEquals("jobEnd", last.event());
      assertEquals("killed", last.get("state"));
      assertEquals("false", last.get("succeeded"));
      assertEquals("killed by the test", last.get("diagnostics"));
    } finally {
      driver.close();
    }
  }
}
