package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The ResourceManager appends the diagnostics an AM unregisters with to its own, without a
 * separator: after a ResourceManager restart its "Attempt recovered after RM restart" came
 * first, and the two texts ran together ("RM restartjob failed ...").
 */
class UnregisterDiagnosticsTest {
  /** What the RM shows: its text (empty unless it added one), then the AM's, appended. */
  private static String rmShows(String rmText, String amText) {
    return rmText + amText;
  }

  @Test
  void afterAResourceManagerRestartTheTextsStaySeparate() {
    String am = ApplicationMaster.unregisterDiagnostics("job failed: stage 1 lost",
        "\nTide: 2 executors ran (peak 2 at once, 0 failed)");
    assertEquals("Attempt recovered after RM restart\njob failed: stage 1 lost\nTide: 2 executors"
        + " ran (peak 2 at once, 0 failed)", rmShows("Attempt recovered after RM restart", am));
  }

  @Test
  void withoutARestartTheClientShowsTheJobsTextFirst() {
    String am = ApplicationMaster.unregisterDiagnostics("job failed: stage 1 lost",
        "\nTide: 1 executors ran");
    assertEquals("job failed: stage 1 lost\nTide: 1 executors ran", rmShows("", am).trim());
  }
}
