package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventTimelineTest {
  private final List<EventLine> events = new ArrayList<>();

  private void at(long millis, String event, Object... keyValues) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      fields.put((String) keyValues[i], keyValues[i + 1]);
    }
    events.add(EventLine.parse(EventLine.json(millis, event, fields)));
  }

  @Test
  void showsWhyExecutorsCameAndWentAndLeavesOutTasks() {
    at(1_000, "jobStart", "app", "application_1_0001", "job", "stream-rate");
    at(1_100, "timeline", "target", 1, "executors", 0, "pendingTasks", 0, "runningTasks", 0);
    at(2_000, "executorLaunched", "executor", "1", "container", "c1", "host", "h1");
    at(3_000, "executorAdded", "executor", "1", "host", "h1");
    at(3_100, "taskStart", "task", 1);
    at(5_000, "streamingAllocation", "batch", 4000, "from", 1, "target", 4, "remove", 0,
        "reason", "batch 2000 was delayed");
    at(5_100, "timeline", "target", 4, "executors", 1, "pendingTasks", 8, "runningTasks", 1);
    at(6_000, "executorAdded", "executor", "2", "host", "h2");
    at(7_000, "batchCompleted", "batch", 4000, "records", 800, "processingMs", 3366,
        "schedulingDelayMs", 431, "delayed", true, "executors", 2, "target", 4);
    at(8_000, "containerCompleted", "container", "c2", "executor", "2", "exitStatus", 137,
        "failure", true, "diagnostics", "killed");
    at(8_000, "executorRemoved", "executor", "2", "reason", "failed: killed");
    at(9_000, "jobEnd", "succeeded", true, "diagnostics", "stream stopped after 3 batches");
    assertEquals(String.join("\n",
        "      0.0s  job stream-rate started (application_1_0001)",
        "      0.1s  target 0 -> 1 executors (0 tasks pending, 0 running)",
        "      1.0s  executor 1 launched on h1 in c1",
        "      4.0s  target 1 -> 4 executors: batch 2000 was delayed",
        "      6.0s  batch 4000: 800 records in 3366 ms, scheduling delay 431 ms, executors 2"
            + " (target 4), DELAYED",
        "      7.0s  container c2 of executor 2 failed (exit 137): killed",
        "      7.0s  executor 2 gone: failed: killed (1 running)",
        "      8.0s  job succeeded: stream stopped after 3 batches",
        "executors: 2 added, peak 2 running, 1 failed, 0 preempted; map outputs lost: 0", ""),
        EventTimeline.render(events));
  }

  @Test
  void aKilledJobSaysKilled() {
    at(1_000, "jobStart", "app", "application_1_0002", "job", "sleep");
    at(2_500, "jobEnd", "succeeded", false, "diagnostics", "application application_1_0002 was"
        + " killed", "state", "killed");
    assertEquals(String.join("\n",
        "      0.0s  job sleep started (application_1_0002)",
        "      1.5s  job killed: application application_1_0002 was killed",
        "executors: 0 added, peak 0 running, 0 failed, 0 preempted; map outputs lost: 0", ""),
        EventTimeline.render(events));
  }

  @Test
  void saysWhichNodesLeaveAndWhichExecutorsArePreempted() {
    at(1_000, "jobStart", "app", "application_1_0003", "job", "wordcount");
    at(2_000, "nodeDecommissioning", "node", "nm2", "host", "nm2", "timeoutSeconds", 30,
        "leavesAt", 32_000);
    at(3_000, "preemptionRequested", "strictContainers", "[]", "negotiableContainers", "[c3]",
        "memoryMb", 768, "vcores", 1);
    at(3_000, "executorPreempted", "executor", "4", "container", "c4", "host", "nm1", "how",
        "given back", "reason", "idle");
    at(4_000, "nodeLost", "node", "nm2", "host", "nm2", "state", "DECOMMISSIONED");
    at(5_000, "jobEnd", "succeeded", true, "diagnostics", "done");
    assertEquals(String.join("\n",
        "      0.0s  job wordcount started (application_1_0003)",
        "      1.0s  node nm2 decommissioning (leaves in 30 s): no new work there",
        "      2.0s  YARN asks for resources back (preemption): 768 MB, 1 vcores; strict []",
        "      2.0s  executor 4 preempted (given back): idle",
        "      3.0s  node nm2 gone (DECOMMISSIONED)",
        "      4.0s  job succeeded: done",
        "executors: 0 added, peak 0 running, 0 failed, 1 preempted; map outputs lost: 0", ""),
        EventTimeline.render(events));
  }
}
