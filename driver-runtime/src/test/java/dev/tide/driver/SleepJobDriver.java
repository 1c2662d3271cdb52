package dev.tide.driver;

import dev.tide.app.AppOptions;
import dev.tide.driver.alloc.ExecutorAllocationClient;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.job.JobArgs;
import java.io.IOException;
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

/**
 * A real driver of {@code application_1_0001} running the built-in sleep job (2 maps of 600 s,
 * output under a directory of the test's), started and run until its plan asks for executors:
 * for tests that end a running job from outside (a kill, an attempt the ResourceManager dropped).
 * Its event log is written to {@code <dir>/events}.
 */
public final class SleepJobDriver implements AutoCloseable {
  public static final String APP = "application_1_0001";
  private final Driver driver;
  private final CompletableFuture<JobResult> result = new CompletableFuture<>();
  private final Path eventLog;

  private SleepJobDriver(Driver driver, Path eventLog) {
    this.driver = driver;
    this.eventLog = eventLog;
  }

  /** Starts the driver and its job, and returns once the job's first plan asks for executors. */
  public static SleepJobDriver start(Path dir, Path out) throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(TideOptions.DRIVER_PORT.key(), 0);
    conf.set(TideOptions.JOB.key(), "sleep");
    conf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(List.of("-m", "2", "-mt", "600000",
        "-o", out.toUri().toString())));
    conf.set(TideOptions.EVENT_LOG_DIR.key(), dir.resolve("events").toUri().toString());
    CompletableFuture<Integer> planRuns = new CompletableFuture<>();
    Driver driver = new Driver(conf, APP, "secret".getBytes(StandardCharsets.UTF_8),
        new ExecutorAllocationClient() {
          @Override
          public void requestTotalExecutors(int targetExecutors, int localityAwareTasks,
              Map<String, Integer> hostToLocalTaskCount) {
            planRuns.complete(targetExecutors);
          }

          @Override
          public void killExecutors(Collection<String> executorIds) {}
        });
    SleepJobDriver running = new SleepJobDriver(driver,
        dir.resolve("events").resolve(APP + ".events"));
    try {
      driver.start();
      Thread run = new Thread(() -> {
        try {
          running.result.complete(driver.run());
        } catch (InterruptedException e) {
          running.result.completeExceptionally(e);
        }
      }, "driver-run");
      run.setDaemon(true);
      run.start();
      planRuns.get(20, TimeUnit.SECONDS);
      return running;
    } catch (Exception | Error e) {
      driver.close();
      throw e;
    }
  }

  public Driver driver() {
    return driver;
  }

  /** The job's result, waiting up to 20 s for its end. */
  public JobResult awaitEnd() throws Exception {
    return result.get(20, TimeUnit.SECONDS);
  }

  /** The event log as written so far (all of it after {@link #close()}). */
  public List<EventLine> events() throws IOException {
    try (InputStream in = Files.newInputStream(eventLog)) {
      return EventLine.readAll(in);
    }
  }

  @Override
  public void close() {
    driver.close();
  }
}
