package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tide.testing.Await;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The AM's web UI in a real browser (Debian's chromium, headless, driven by Selenium through
 * /usr/bin/chromedriver; see shared/TESTING.md), reached as a user reaches it: through the
 * ResourceManager's web proxy at the application's tracking URL, while a {@code sleep} job's
 * executors rise for its maps and fall during its long reduce. Screenshots of every page go to
 * {@code target/ui-screenshots/}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class WebUiTest {
  private static final Path SHOTS = Path.of("target", "ui-screenshots");
  private static EmbeddedCluster cluster;
  private static WebDriver browser;

  @BeforeAll
  static void start() throws Exception {
    for (String program : List.of("/usr/bin/chromium", "/usr/bin/chromedriver")) {
      if (!new File(program).canExecute()) {
        throw new IllegalStateException(program + " is missing: install Debian's chromium and"
            + " chromium-driver (apt-get install -y chromium chromium-driver), as .ci/run does");
      }
    }
    cluster = SharedCluster.get();
    Files.createDirectories(SHOTS);
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--window-size=1280,1000",
        "--user-data-dir=" + Files.createTempDirectory("tide-chromium"));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
  }

  @Test
  void theExecutorsAndTheirRiseAndFallShowThroughTheResourceManagersProxy() throws Exception {
    Configuration conf = cluster.clientConf();
    long submitted = System.currentTimeMillis();
    conf.set("tide.dynamicAllocation.maxExecutors", "4");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "2s");
    CompletableFuture<JobRun> job = BackgroundJob.submit(conf, System.out, "sleep", "-m", "16",
        "-r", "1", "-mt", "1500", "-rt", "25000");
    YarnClient yarn = cluster.yarnClient();
    ApplicationReport report = BackgroundJob.awaitRunning(yarn, job, submitted);
    assertTrue(report.getTrackingUrl().contains("/proxy/" + report.getApplicationId() + "/"),
        report.getTrackingUrl());
    // The report's URL carries the port the RM was configured with (0 under test): the same
    // path on the port its web server took.
    String proxy = "http://" + conf.get("yarn.resourcemanager.webapp.address") + "/proxy/"
        + report.getApplicationId() + "/";
    ObjectMapper json = new ObjectMapper();
    // The proxy warns a browser once per application before it shows the AM's pages (YARN's
    // "The following page may not be safe"); following its link approves, with a cookie.
    browser.get(proxy);
    if (browser.getPageSource().contains("may not be safe")) {
      shot("proxy-warning");
      browser.get(proxy + "?proxyapproved=true");
    }

    // Wait, through the proxy's JSON API, until executors rose and some were removed again.
    JsonNode[] read = new JsonNode[1];
    String rose = "executors rose to 3 or more and fell again while the reduce ran";
    Await.until(Duration.ofSeconds(150), () -> rose + ": " + read[0], () -> {
      browser.get(proxy + "api/v1/allocation");
      String body = browser.findElement(By.tagName("body")).getText();
      assertTrue(body.startsWith("{"), "JSON from the proxy: " + body);
      read[0] = json.readTree(body);
      return job.isDone() || peak(read[0]) >= 3 && last(read[0]) < peak(read[0]);
    });
    JsonNode allocation = read[0];
    assertTrue(allocation != null && peak(allocation) >= 3 && last(allocation) < peak(allocation),
        "executors rose to 3 or more and fell again while the reduce ran: " + allocation);

    browser.get(proxy);
    shot("overview");
    assertTrue(browser.getTitle().contains(report.getApplicationId().toString()),
        browser.getTitle());
    assertTrue(browser.findElement(By.id("overview-table")).getText().contains("sleep"));

    // An executor can go idle and leave while the last maps run, before the reduce is
    // submitted (a clean-clone CI run saw one stage here): the reduce runs for 25 s, so it shows.
    int[] stages = new int[1];
    Await.until(Duration.ofSeconds(60), () -> "two stages, map and reduce, on the stages page; "
        + stages[0] + " shown", () -> {
          browser.get(proxy + "stages");
          stages[0] = browser.findElements(By.cssSelector("#stages-table tr")).size() - 1;
          return stages[0] == 2;
        });
    shot("stages");
    assertEquals(2, browser.findElements(By.cssSelector("#stages-table tr")).size() - 1,
        "two stages: map and reduce");

    browser.get(proxy + "executors");
    shot("executors");
    List<WebElement> rows = browser.findElements(By.cssSelector("tr.executor"));
    assertTrue(rows.size() >= peak(allocation), rows.size() + " executor rows for a peak of "
        + peak(allocation));
    assertTrue(browser.findElement(By.id("executors-table")).getText().contains("ended"),
        "removed executors are listed as ended");
    // A running executor's: a finished one's logs go at once under the test cluster's settings.
    String logLink = null;
    String logContainer = null;
    for (WebElement row : rows) {
      if (row.getText().contains(" running ")) {
        logLink = row.findElement(By.cssSelector("a.logs")).getAttribute("href");
        logContainer = row.findElements(By.tagName("td")).get(2).getText();
      }
    }
    assertTrue(logLink != null, "a running executor with a log link");

    browser.get(proxy + "allocation");
    shot("allocation");
    WebElement running = browser.findElement(By.cssSelector(
        "#executors-chart path[data-series='running']"));
    assertTrue(Integer.parseInt(running.getAttribute("data-points")) >= 5,
        "the chart has the timeline's samples");
    assertTrue(browser.findElement(By.id("decisions-table")).getText().contains("backlog"),
        "the decisions say why the target rose");

    browser.get(proxy + "jmx?qry=Hadoop:service=TideAM,name=TideApplicationMaster");
    assertTrue(browser.getPageSource().contains("TargetExecutors"), browser.getPageSource());

    browser.get(logLink);
    shot("executor-logs");
    assertTrue(browser.getPageSource().contains("Logs for " + logContainer), "the log link"
        + " opened the NodeManager's page of " + logContainer + "'s logs: "
        + browser.getPageSource());

    JobRun run = job.get(120, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    String diagnostics = yarn.getApplicationReport(report.getApplicationId()).getDiagnostics();
    assertTrue(diagnostics.contains("executors ran (peak")
        && diagnostics.contains("report: bin/tide history " + report.getApplicationId()),
        "the ended application's page (its final tracking link) sums it up: " + diagnostics);
    // After the end the application's tracking link is the final tracking URL the AM gave at
    // unregister (here no tide.history.url: the ResourceManager's page of the application), not
    // N/A; yarn application -status prints it (the report's original tracking URL).
    ApplicationReport ended = yarn.getApplicationReport(report.getApplicationId());
    System.out.println("After the end: tracking URL " + ended.getTrackingUrl()
        + ", original tracking URL " + ended.getOriginalTrackingUrl());
    String rmAppPage = "http://" + conf.get("yarn.resourcemanager.webapp.address")
        + "/cluster/app/" + report.getApplicationId();
    // (The test cluster's ResourceManager serves no /cluster pages, so the page is not opened.)
    assertEquals(rmAppPage, ended.getOriginalTrackingUrl());

    Path html = SHOTS.resolve("history.html").toAbsolutePath();
    JobRun history = Submitter.run(conf, System.out, "history",
        report.getApplicationId().toString(), html.toString());
    assertEquals(0, history.exitCode(), history.output());
    assertTrue(history.output().contains("Wrote the history report of "
        + report.getApplicationId() + " (succeeded) to " + html), history.output());
    browser.get(html.toUri().toString());
    shot("history");
    assertTrue(browser.findElements(By.cssSelector("tr.executor")).size() >= rows.size(),
        "the report lists every executor");
    assertTrue(browser.findElement(By.id("executors-chart")).isDisplayed());
  }


  private static int peak(JsonNode allocation) {
    int peak = 0;
    for (JsonNode s : allocation.get("samples")) {
      peak = Math.max(peak, s.get("running").asInt());
    }
    return peak;
  }

  private static int last(JsonNode allocation) {
    JsonNode samples = allocation.get("samples");
    return samples.size() == 0 ? 0 : samples.get(samples.size() - 1).get("running").asInt();
  }

  private static void shot(String page) throws Exception {
    File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(png.toPath(), SHOTS.resolve(page + ".png"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }
}
