package dev.tide.am.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.JobResult;
import dev.tide.driver.SleepJobDriver;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.driver.events.JobEndState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real driver does when the allocator finds the application attempt gone from the
 * ResourceManager: a killed application's job ends as killed (as on the SIGTERM that follows),
 * its event log ending with that {@code jobEnd}; any other ends as failed.
 */
class DriverCallbacksTest {
  private static final String GONE = "the ResourceManager no longer knows this application"
      + " attempt: Application attempt appattempt_1_0001_000001 doesn't exist";

  @Test
  void anAttemptGoneBecauseTheApplicationWasKilledEndsTheJobAsKilled(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out");
    Ended ended = runAndEndAttempt(dir, out, true);

    assertEquals(JobEndState.KILLED, ended.result.state());
    assertFalse(Files.exists(out), "the uncommitted output is deleted");
    EventLine last = ended.events.get(ended.events.size() - 1);
    assertEquals("jobEnd", last.event(), "a release logged after the end is not in the log");
    assertEquals("killed", last.get("state"));
    assertEquals("the application was killed (the ResourceManager ended its attempt: " + GONE
        + ")", last.get("diagnostics"));
  }

  @Test
  void anAttemptGoneOtherwiseFailsTheJob(@TempDir Path dir) throws Exception {
    Ended ended = runAndEndAttempt(dir, dir.resolve("out"), false);

    assertEquals(JobEndState.FAILED, ended.result.state());
    assertEquals(GONE, ended.result.diagnostics());
  }

  private record Ended(JobResult result, List<EventLine> events) {}

  /** Runs a sleep job until its plan asks for executors, then reports the attempt gone. */
  private static Ended runAndEndAttempt(Path dir, Path out, boolean killed) throws Exception {
    JobResult end;
    SleepJobDriver running = SleepJobDriver.start(dir, out);
    try {
      assertTrue(Files.isDirectory(out.resolve("_temporary")), "the plan's output is prepared");
      DriverCallbacks callbacks = DriverCallbacks.of(running.driver(), () -> killed);

      callbacks.attemptGone(GONE);
      end = running.awaitEnd();
      // The allocator releases the containers as the AM stops, after the job's end.
      callbacks.logEvent(EventName.CONTAINER_RELEASED, "container", "container_1_0001_01_000002",
          "host", "localhost", "reason", "the application ended");
    } finally {
      running.close();
    }
    return new Ended(end, running.events());
  }
}
