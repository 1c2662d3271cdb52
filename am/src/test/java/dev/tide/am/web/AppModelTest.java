package dev.tide.am.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tide.driver.events.EventLine;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The UI's model, pages and JSON from a hand-written event sequence. */
class AppModelTest {
  private final AppModel model = new AppModel();

  private void at(long millis, String event, Object... keyValues) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      fields.put((String) keyValues[i], keyValues[i + 1]);
    }
    model.apply(EventLine.parse(EventLine.json(millis, event, fields)));
  }

  private void story() {
    at(0, "jobStart", "app", "application_1_0007", "job", "wordcount", "user", "bob");
    at(10, "planStart", "plan", "wordcount", "stages", 2, "tasks", 3);
    at(20, "stageSubmitted", "stage", 0, "name", "map", "tasks", 2, "parents", "[]");
    at(30, "targetChanged", "from", 0, "target", 2, "reason", "backlog 1.0 s, 2 pending");
    at(40, "executorLaunched", "executor", "1", "container", "c1", "host", "h1", "nodeHttp",
        "h1:8042");
    at(45, "executorLaunched", "executor", "2", "container", "c2", "host", "h2", "nodeHttp",
        "h2:8042");
    at(50, "timeline", "target", 2, "executors", 0, "pendingTasks", 2, "runningTasks", 0);
    at(60, "executorAdded", "executor", "1");
    at(61, "executorAdded", "executor", "2");
    at(70, "taskStart", "task", 1, "stage", 0, "executor", "1");
    at(71, "taskStart", "task", 2, "stage", 0, "executor", "2");
    at(1070, "taskEnd", "task", 1, "stage", 0, "executor", "1", "result", "SUCCEEDED",
        "outputBytes", 2048, "spills", 3, "spilledBytes", 3_000_000, "peakHeapBytes", 40_000_000);
    at(2071, "taskEnd", "task", 2, "stage", 0, "executor", "2", "result", "FAILED",
        "spills", 1, "spilledBytes", 1_000_000);
    at(2100, "containerCompleted", "container", "c2", "executor", "2", "exitStatus", 137,
        "failure", true, "diagnostics", "Container killed on request. Exit code is 137");
    at(2100, "executorRemoved", "executor", "2", "reason", "failed: killed");
    at(2200, "timeline", "target", 2, "executors", 1, "pendingTasks", 1, "runningTasks", 0);
    at(3000, "executorIdleRemoval", "executor", "1", "reason", "idle; removed by dynamic"
        + " allocation");
    at(3100, "batchCompleted", "batch", 3000, "records", 10, "processingMs", 900,
        "schedulingDelayMs", 5, "delayed", false, "executors", 1, "target", 2);
  }

  @Test
  void executorsStagesAndDecisionsFollowTheEvents() {
    story();
    AppModel.Executor one = model.executors().get(0);
    AppModel.Executor two = model.executors().get(1);
    assertEquals("pending-to-remove", one.state);
    assertEquals(1, one.tasksDone);
    assertEquals(2048, one.shuffleWrittenBytes);
    assertEquals("failed", two.state);
    assertEquals("137", two.exitStatus);
    assertEquals(1, two.tasksFailed);
    AppModel.Stage map = model.stages().get(0);
    assertEquals(1, map.done);
    assertEquals(1, map.failed);
    assertEquals(0, map.running);
    assertEquals(2000, map.taskMillisMax);
    assertEquals(2, model.decisions().size());
    assertEquals("target 0 -> 2", model.decisions().get(0).what());
    AppModel.Counts c = model.counts();
    assertEquals(0, c.running());
    assertEquals(1, c.pendingRemoval());
    assertEquals(1, c.executorFailures());
    assertEquals(1, c.batches());
    assertEquals(4, c.spills(), "a failed attempt's spills count too");
    assertEquals(4_000_000, c.spilledBytes());
    assertEquals(4, map.spills);
    assertEquals(40_000_000, map.peakHeapBytes);
  }

  @Test
  void pagesAndJsonShowTheSameThings() throws Exception {
    story();
    String executors = UiPages.page("executors", model);
    assertTrue(executors.contains("href=\"http://h2:8042/node/containerlogs/c2/bob\""));
    assertTrue(executors.contains("Container killed on request. Exit code is 137"));
    String allocation = UiPages.page("allocation", model);
    assertTrue(allocation.contains("data-series=\"running\" data-points=\"2\""), allocation);
    assertTrue(allocation.contains("backlog 1.0 s, 2 pending"));
    assertTrue(allocation.contains("id=\"batches-chart\""));
    String report = UiPages.report(model);
    for (String section : new String[] {"overview-table", "stages-table", "executors-table",
        "executors-chart", "decisions-table"}) {
      assertTrue(report.contains("id=\"" + section + "\""), section);
    }
    assertTrue(!report.contains("<script") && !report.contains("src=\"http"),
        "self-contained: no script, nothing loaded from elsewhere");
    JsonNode json = new ObjectMapper().readTree(JsonApi.render("executors", model).orElseThrow());
    assertEquals("failed", json.get(1).get("state").asText());
    JsonNode samples = new ObjectMapper().readTree(JsonApi.render("allocation", model)
        .orElseThrow()).get("samples");
    assertEquals(1, samples.get(1).get("running").asInt());
    assertTrue(JsonApi.render("nothing", model).isEmpty());
  }

  @Test
  void anExecutorLostWithoutHeartbeatsShowsWhyNotOnlyThatItsContainerWasReleased() {
    at(0, "jobStart", "app", "application_1_0009", "job", "wordcount", "user", "bob");
    at(40, "executorLaunched", "executor", "3", "container", "c3", "host", "h3");
    at(60, "executorAdded", "executor", "3");
    String why = "lost: no heartbeat for 61 s (tide.executor.heartbeatTimeout = 60s)";
    at(61_100, "executorRemoved", "executor", "3", "reason", why);
    at(61_400, "containerCompleted", "container", "c3", "executor", "3", "exitStatus", -100,
        "released", true, "failure", false, "diagnostics",
        "released by the ApplicationMaster (exit status -100)");
    assertEquals(why, model.executors().get(0).removalReason);
    assertTrue(UiPages.page("executors", model).contains(why));
  }

  @Test
  void aSpeculativeAttemptIsADecisionWithItsReason() {
    at(0, "jobStart", "app", "application_1_0010", "job", "sort", "user", "bob");
    at(5_000, "taskSpeculated", "task", 9, "of", 4, "stage", 0, "index", 3, "attempt", 1,
        "executor", "2", "host", "h2", "runningMs", 4_100, "thresholdMs", 1_500);
    AppModel.Decision d = model.decisions().get(0);
    assertEquals("speculate task 3 of stage 0 on executor 2", d.what());
    assertTrue(d.reason().startsWith("its attempt ran 4100 ms, over 1500 ms"), d.reason());
    assertTrue(UiPages.page("allocation", model).contains("speculate task 3 of stage 0"));
  }

  @Test
  void textFromTheEventsIsEscapedInThePages() {
    at(0, "jobStart", "app", "application_1_0008", "job", "<script>alert(1)</script>");
    assertTrue(!UiPages.page("", model).contains("<script>alert"));
  }

  /** A stream that ran for hours: the live page stays small, a spike still shows. */
  @Test
  void aLongStreamsPageShowsTheNewestRowsAndThinsItsCharts() {
    at(0, "jobStart", "app", "application_1_0008", "job", "stream-rate", "user", "bob");
    int batches = 20_000;
    for (int i = 1; i <= batches; i++) {
      long t = i * 2_000L;
      at(t, "timeline", "target", 2, "executors", 2, "pendingTasks", 0, "runningTasks", 1);
      at(t + 1_500, "batchCompleted", "batch", t, "records", 100, "processingMs",
          i == 7_777 ? 60_000 : 1_200, "schedulingDelayMs", 0, "delayed", i == 7_777,
          "executors", 2, "target", 2);
    }
    String page = UiPages.page("allocation", model);
    assertTrue(page.length() < 400_000, "page of " + page.length() + " chars");
    assertTrue(page.contains((batches - UiPages.PAGE_ROWS) + " earlier batches not shown"));
    assertEquals(UiPages.PAGE_ROWS, page.split("<tr class=\"(delayed)?\"><td>", -1).length - 1,
        "the newest rows");
    java.util.regex.Matcher points = java.util.regex.Pattern.compile(
        "data-series=\"processing time\" data-points=\"(\\d+)\"").matcher(page);
    assertTrue(points.find(), page.substring(0, 2000));
    assertTrue(Integer.parseInt(points.group(1)) <= 1_000, points.group());
    assertTrue(page.contains(">60<") || page.contains("60.0") || page.contains(">80<"),
        "the 60 s spike sets the chart's scale");
    assertEquals(batches, model.batches().size(), "the model keeps every batch");
    String report = UiPages.report(model);
    assertTrue(!report.contains("earlier batches not shown"), "the report has every batch");
  }

  @Test
  void anIdleRemovedExecutorShowsWhyItWasRemoved() {
    at(0, "jobStart", "app", "application_1_0009", "job", "sleep", "user", "bob");
    at(10, "executorLaunched", "executor", "1", "container", "c1", "host", "h1");
    at(20, "executorAdded", "executor", "1");
    at(5000, "executorIdleRemoval", "executor", "1", "reason",
        "idle for 2.0 s; removed by dynamic allocation");
    at(5100, "executorRemoved", "executor", "1", "reason", "idle; removed by dynamic allocation; it exited");
    at(5200, "containerCompleted", "container", "c1", "executor", "1", "exitStatus", -100,
        "released", true, "failure", false, "diagnostics",
        "released by the ApplicationMaster (exit status -100)");
    String row = executorRow(UiPages.page("executors", model), "1");
    assertTrue(row.contains("idle for 2.0 s; removed by dynamic allocation"), row);
    assertTrue(row.contains("-100"), "the exit status stays: " + row);
  }

  @Test
  void jobArgumentsAreShownDecodedAndEscaped() {
    at(0, "jobStart", "app", "application_1_0010", "job", "wordcount", "user", "bob");
    at(1, "settings", "tide.job.args", dev.tide.driver.job.JobArgs.encode(java.util.List.of(
        "<script>alert(1)</script>", "/out dir")), "tide.executor.cores", 2);
    String page = UiPages.page("", model);
    assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
    assertTrue(page.contains("/out dir"), page);
    assertTrue(!page.contains("%3Cscript") && !page.contains("<script>alert"), page);
  }

  /** 500 executors: a summary as the Spark UI's, one page of them at a time. */
  @Test
  void aLargeExecutorsPageHasASummaryAndShowsOnePageOfRows() {
    manyExecutors(500);
    String page = UiPages.page("executors", model);
    assertTrue(page.contains("id=\"executors-summary\""), page.substring(0, 3000));
    String summary = page.substring(page.indexOf("id=\"executors-summary\""));
    summary = summary.substring(0, summary.indexOf("</table>"));
    assertTrue(summary.contains("<td>total</td><td class=\"n\">500</td>"), summary);
    assertTrue(summary.contains("<td>running</td><td class=\"n\">250</td>"), summary);
    assertTrue(summary.contains("<td>ended</td><td class=\"n\">250</td>"), summary);
    assertTrue(summary.contains("<td class=\"n\">1500</td>"), "tasks done in all: " + summary);
    int rows = page.split("<tr class=\"executor\"", -1).length - 1;
    assertTrue(rows <= 100, rows + " rows on one page");
    assertTrue(page.contains("executors?sort=id&amp;order=asc&amp;page=2"), "a link to the next"
        + " page");
    String report = UiPages.report(model);
    assertEquals(500, report.split("<tr class=\"executor\"", -1).length - 1,
        "the report lists every executor");
  }

  @Test
  void chartAxesShowWallClockTimes() {
    long t0 = 1_700_000_040_000L;
    at(t0, "jobStart", "app", "application_1_0011", "job", "sleep", "user", "bob");
    for (int i = 1; i <= 60; i++) {
      at(t0 + i * 1000L, "timeline", "target", 2, "executors", 1, "pendingTasks", 0,
          "runningTasks", 1);
    }
    String page = UiPages.page("allocation", model);
    String chart = page.substring(page.indexOf("id=\"executors-chart\""));
    chart = chart.substring(0, chart.indexOf("</svg>"));
    java.time.format.DateTimeFormatter clock = java.time.format.DateTimeFormatter
        .ofPattern("HH:mm:ss").withZone(java.time.ZoneId.systemDefault());
    assertTrue(chart.contains(">" + clock.format(java.time.Instant.ofEpochMilli(t0 + 30_000))
        + "</text>"), chart);
    assertTrue(!chart.matches("(?s).*>[0-9.]+s</text>.*"), "no seconds-from-start labels: "
        + chart);
  }

  /** Executors 1..n on hosts h(n-1)..h0, the odd ones ended, 3 tasks done each. */
  private void manyExecutors(int n) {
    at(0, "jobStart", "app", "application_1_0012", "job", "sleep", "user", "bob");
    for (int i = 1; i <= n; i++) {
      String id = Integer.toString(i);
      at(i, "executorLaunched", "executor", id, "container", "c" + i, "host",
          String.format("h%03d", n - i), "nodeHttp", "h:8042");
      at(i, "executorAdded", "executor", id);
      for (int task = 0; task < 3; task++) {
        at(i, "taskStart", "task", i * 10 + task, "stage", 0, "executor", id);
        at(i + 1, "taskEnd", "task", i * 10 + task, "stage", 0, "executor", id, "result",
            "SUCCEEDED", "outputBytes", 1024);
      }
      if (i % 2 == 1) {
        at(i + 2, "executorRemoved", "executor", id, "reason", "idle; removed by dynamic allocation; it exited");
      }
    }
  }

  private static String executorRow(String page, String id) {
    int start = page.indexOf("data-executor=\"" + id + "\"");
    assertTrue(start >= 0, page);
    return page.substring(start, page.indexOf("</tr>", start));
  }
}
