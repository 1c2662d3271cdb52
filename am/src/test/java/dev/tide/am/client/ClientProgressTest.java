package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.JobStatus;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.Test;

/** The lines the client prints while an application runs, from the RM's report and /status. */
class ClientProgressTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1700000000000L, 1);
  private final ClientProgress progress = new ClientProgress(APP);

  private static JobStatus status(int tasksDone, int damaged) {
    return new JobStatus("wordcount", 1, 2, tasksDone, 10, 10 - tasksDone, 0, 2, 2,
        tasksDone / 10f, "", "", damaged);
  }

  @Test
  void aNewApplicationMasterAttemptIsSaidOnce() {
    assertEquals(List.of(), progress.attempt(ApplicationAttemptId.newInstance(APP, 1)));
    assertEquals(List.of(), progress.attempt(ApplicationAttemptId.newInstance(APP, 1)));
    assertEquals(List.of(APP + " ApplicationMaster attempt 2 started (attempt 1 ended): the job"
        + " starts over"), progress.attempt(ApplicationAttemptId.newInstance(APP, 2)));
    assertEquals(List.of(), progress.attempt(ApplicationAttemptId.newInstance(APP, 2)));
    assertEquals(List.of(), progress.attempt(null));
  }

  @Test
  void progressIsPrintedWhenItChanges() {
    assertEquals(List.of(APP + " RUNNING stage 1/2, tasks 3/10, executors 2 (target 2)"),
        progress.status(status(3, 0)));
    assertEquals(List.of(), progress.status(status(3, 0)));
  }

  @Test
  void damagedMapOutputsAreSaidWhenTheirCountGrows() {
    progress.status(status(3, 0));
    assertEquals(List.of(APP + " RUNNING stage 1/2, tasks 4/10, executors 2 (target 2)",
        APP + " 1 map output found damaged on its node's disk (1 so far): its map is"
            + " rerun; the event log's mapOutputLost events say where"),
        progress.status(status(4, 1)));
    assertEquals(List.of(), progress.status(status(4, 1)));
    assertEquals(List.of(APP + " 2 map outputs found damaged on their node's disk (3 so far):"
        + " their maps are rerun; the event log's mapOutputLost events say where"),
        progress.status(status(4, 3)));
  }
}
