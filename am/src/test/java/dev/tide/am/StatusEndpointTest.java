package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.JobStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The AM's /status endpoint and the client's reader of it, over real HTTP. */
class StatusEndpointTest {
  private static final JobStatus STATUS =
      new JobStatus("wordcount", 1, 2, 12, 40, 20, 8, 3, 4, 0.3f, "", "");

  @Test
  void textRoundTrip() {
    assertEquals(STATUS, JobStatusText.parse(JobStatusText.format(STATUS)));
    assertEquals("stage 1/2, tasks 12/40, executors 3 (target 4)",
        JobStatusText.parse(JobStatusText.format(STATUS)).describe());
  }

  @Test
  void waitingReasonFollowsTheCountsAndMayBeAbsent() {
    JobStatus waiting = new JobStatus("wordcount", 2, 2, 25, 26, 1, 0, 0, 1, 0.96f,
        "nodes excluded h2,h3 (executor failures)", "");
    assertEquals(waiting, JobStatusText.parse(JobStatusText.format(waiting)));
    assertEquals("stage 2/2, tasks 25/26, executors 0 (target 1), waiting: nodes excluded h2,h3"
        + " (executor failures)", waiting.describe());
    JobStatus stream = new JobStatus("stream-rate", 1, 2, 3, 17, 14, 3, 2, 4, 0.2f, "",
        "batch 1700000002000 running, 12 done, last 2000 records in 1300 ms (delay 0 ms)");
    assertEquals(stream, JobStatusText.parse(JobStatusText.format(stream)));
    assertEquals("batch 1700000002000 running, 12 done, last 2000 records in 1300 ms (delay 0"
        + " ms), executors 2 (target 4)", stream.describe());

    String fromAnOlderAm = JobStatusText.format(STATUS).replace("waitingReason=\n", "");
    assertEquals(STATUS, JobStatusText.parse(fromAnOlderAm));
  }

  @Test
  void statusUrlFromTrackingUrl() {
    assertEquals(Optional.of("http://h:123/status"), AmStatusClient.statusUrl("http://h:123/"));
    assertEquals(Optional.of("http://h:123/status"), AmStatusClient.statusUrl("h:123"));
    assertEquals(Optional.empty(), AmStatusClient.statusUrl("N/A"));
    assertEquals(Optional.empty(), AmStatusClient.statusUrl(""));
    assertEquals(Optional.empty(), AmStatusClient.statusUrl(null));
  }

  @Test
  void clientReadsWhatTheServerServes() throws IOException {
    AtomicReference<JobStatus> current = new AtomicReference<>();
    try (StatusHttpServer server = new StatusHttpServer("localhost", "application_1_0001", () -> {
      JobStatus status = current.get();
      if (status == null) {
        throw new IllegalStateException("driver not started");
      }
      return status;
    })) {
      server.start();
      String url = AmStatusClient.statusUrl(server.trackingUrl()).orElseThrow();
      AmStatusClient client = new AmStatusClient(Duration.ofSeconds(5));

      IOException notYet = assertThrows(IOException.class, () -> client.fetch(url));
      assertEquals("GET " + url + " answered 503", notYet.getMessage());

      current.set(STATUS);
      assertEquals(STATUS, client.fetch(url));
    }
  }
}
