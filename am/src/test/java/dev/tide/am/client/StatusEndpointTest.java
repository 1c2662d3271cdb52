package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.web.AmWebServer;
import dev.tide.am.web.AppModel;
import dev.tide.am.web.JobStatusText;
import dev.tide.driver.JobStatus;
import dev.tide.driver.events.EventLine;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
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
  void damagedMapOutputsRoundTripAndReadAsZeroFromAnOlderAm() {
    JobStatus damaged = new JobStatus("wordcount", 2, 2, 25, 26, 1, 0, 0, 1, 0.96f, "", "", 2);
    assertEquals(damaged, JobStatusText.parse(JobStatusText.format(damaged)));
    String older = JobStatusText.format(damaged).replace("damagedMapOutputs=2\n", "");
    assertEquals(0, JobStatusText.parse(older).damagedMapOutputs());
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
  void clientReadsWhatTheServerServes() throws Exception {
    AtomicReference<JobStatus> current = new AtomicReference<>();
    try (AmWebServer server = new AmWebServer(new Configuration(), "localhost", () -> {
      JobStatus status = current.get();
      if (status == null) {
        throw new IllegalStateException("driver not started");
      }
      return status;
    }, new AppModel(), false)) {
      server.start();
      String url = AmStatusClient.statusUrl(server.trackingUrl()).orElseThrow();
      AmStatusClient client = new AmStatusClient(Duration.ofSeconds(5));

      IOException notYet = assertThrows(IOException.class, () -> client.fetch(url));
      assertEquals("GET " + url + " answered 503", notYet.getMessage());

      current.set(STATUS);
      assertEquals(STATUS, client.fetch(url));
    }
  }

  @Test
  void theWebUiServesItsPagesTheJsonApiAndHadoopsJmx() throws Exception {
    AppModel model = new AppModel();
    model.apply(EventLine.parse(EventLine.json(1000, "jobStart",
        Map.of("app", "application_1_0001", "job", "wordcount", "user", "alice"))));
    model.apply(EventLine.parse(EventLine.json(1100, "executorLaunched", Map.of("executor", "1",
        "container", "container_1_0001_01_000002", "host", "h1", "nodeHttp", "h1:8042"))));
    model.apply(EventLine.parse(EventLine.json(1200, "targetChanged", Map.of("from", 0,
        "target", 2, "reason", "backlog 1.0 s, 4 pending"))));
    model.apply(EventLine.parse(EventLine.json(1001, "settings",
        Map.of("tide.executor.cores", "1"))));
    try (AmWebServer server = new AmWebServer(new Configuration(), "localhost", () -> STATUS,
        model, false)) {
      server.start();
      String base = server.trackingUrl();
      String overview = get(base);
      assertTrue(overview.contains("application_1_0001") && overview.contains("tide.executor.cores"),
          overview);
      String executors = get(base + "executors");
      assertTrue(executors.contains(
          "http://h1:8042/node/containerlogs/container_1_0001_01_000002/alice"), executors);
      assertTrue(get(base + "allocation").contains("backlog 1.0 s, 4 pending"));
      assertTrue(get(base + "api/v1/executors").contains("\"container\" : \"container_1_0001_01_000002\""));
      assertTrue(get(base + "jmx").contains("\"beans\""));
      assertEquals(404, status(base + "api/v1/nothing"));
      assertEquals(404, status(base + "nothing"));
    }
  }

  private static String get(String url) throws IOException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url)
        .openConnection();
    try (var in = c.getInputStream()) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static int status(String url) throws IOException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url)
        .openConnection();
    return c.getResponseCode();
  }

  /** The Executors page sorts and pages by its query, as its header and page links ask. */
  @Test
  void theExecutorsPageSortsAndPagesByItsQuery() throws Exception {
    AppModel model = new AppModel();
    model.apply(EventLine.parse(EventLine.json(0, "jobStart", Map.of("app",
        "application_1_0001", "job", "sleep"))));
    for (int i = 1; i <= 250; i++) {
      model.apply(EventLine.parse(EventLine.json(i, "executorLaunched", Map.of("executor",
          Integer.toString(i), "container", "c" + i, "host", String.format("h%03d", i % 7)))));
    }
    try (AmWebServer server = new AmWebServer(new Configuration(), "localhost", () -> STATUS,
        model, false)) {
      server.start();
      String page = get(server.trackingUrl() + "executors?sort=host&order=desc&page=2");
      java.util.List<String> rows = new java.util.ArrayList<>();
      java.util.regex.Matcher row = java.util.regex.Pattern.compile(
          "<tr class=\"executor\" data-executor=\"(\\d+)\"><td>\\d+</td><td>(h\\d+)</td>")
          .matcher(page);
      while (row.find()) {
        rows.add(row.group(2));
      }
      assertEquals(100, rows.size(), page);
      // 250 executors over hosts h000..h006 (36 on h000-h005... ): descending, the second page
      // starts after the first 100 rows.
      java.util.List<String> hosts = new java.util.ArrayList<>();
      for (int i = 1; i <= 250; i++) {
        hosts.add(String.format("h%03d", i % 7));
      }
      hosts.sort(java.util.Comparator.reverseOrder());
      assertEquals(hosts.subList(100, 200), rows);
    }
  }
}
