package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed application's driver (its AM got SIGTERM): the job ends as killed, leaving no debris. */
class DriverKillTest {
  @Test
  void killEndsTheJobAsKilledDeletesItsOutputAndEndsTheEventLog(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out");
    try (SleepJobDriver running = SleepJobDriver.start(dir, out)) {
      assertTrue(Files.isDirectory(out.resolve("_temporary")), "the plan's output is prepared");

      assertTrue(running.driver().kill("killed by the test").get(20, TimeUnit.SECONDS));

      JobResult end = running.awaitEnd();
      assertEquals(dev.tide.driver.events.JobEndState.KILLED, end.state());
      assertFalse(end.succeeded());
      assertFalse(Files.exists(out), "the uncommitted output is deleted");
      List<EventLine> events = running.events();
      EventLine last = events.get(events.size() - 1);
      assertEquals("jobEnd", last.event());
      assertEquals("killed", last.get("state"));
      assertEquals("false", last.get("succeeded"));
      assertEquals("killed by the test", last.get("diagnostics"));
    }
  }
}
