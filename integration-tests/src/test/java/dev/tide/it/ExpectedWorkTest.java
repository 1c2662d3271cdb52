package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code JobSession.expect} on a MiniYARNCluster (the shared one, 3 NodeManagers with the real
 * tide_shuffle service): a job that announces its plan 10 s ahead gets its executors' containers
 * before the plan's first stage is submitted, where without the announcement nothing would be
 * asked for until tasks wait.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ExpectedWorkTest {
  private static final String EVENTS = "/tide-events-expect";

  @Test
  void executorsRiseBeforeTheAnnouncedPlansFirstTaskIsSubmitted() throws Exception {
    EmbeddedCluster cluster = SharedCluster.get();
    Configuration conf = cluster.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.maxExecutors", "2");

    JobRun run = Submitter.run(conf, System.out, ExpectingJob.class.getName(), "2", "10000",
        "/expect/sum");

    assertEquals(0, run.exitCode(), run.output());
    assertEquals(List.of(String.valueOf(CachedPauseJob.expectedSum(2))),
        JobRun.outputLines(cluster.fileSystem(), "/expect/sum"));
    List<EventLine> events = run.events(cluster.fileSystem(), EVENTS);
    long submitted = JobRun.named(events, EventName.STAGE_SUBMITTED).get(0).timeMillis();
    List<EventLine> raised = JobRun.named(events, EventName.TARGET_CHANGED).stream()
        .filter(e -> e.timeMillis() < submitted).toList();
    assertTrue(raised.stream().anyMatch(e -> e.get("target").equals("2")
        && e.get("reason").contains("lookahead")),
        "the target rose to the 2 announced executors before the plan came: " + raised);
    long granted = JobRun.named(events, EventName.CONTAINER_ALLOCATED).stream()
        .filter(e -> e.timeMillis() < submitted).count();
    // At least: the ResourceManager may grant a surplus container, which the AM releases.
    assertTrue(granted >= 2, "both executors' containers were granted before the first stage was"
        + " submitted: " + JobRun.named(events, EventName.CONTAINER_ALLOCATED));
  }
}
