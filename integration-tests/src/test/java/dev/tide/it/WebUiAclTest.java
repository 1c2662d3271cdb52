package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.testing.Await;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The AM's web UI behind YARN's application ACLs ({@code yarn.acl.enable=true}, simple
 * authentication), reached through the ResourceManager's web proxy as users reach it.
 *
 * <p>How a user is named to the proxy here: the cluster's web servers run Hadoop's
 * {@code AuthenticationFilterInitializer} with {@code hadoop.http.authentication.type=simple}
 * and no anonymous users, so the ResourceManager takes the user from the {@code user.name}
 * query parameter (its pseudo authentication handler). Its proxy servlet
 * ({@code WebAppProxyServlet}) then calls the AM from its own host with that user in the
 * {@code proxy-user} cookie, which YARN's {@code AmIpFilter} in the AM turns into the request's
 * user. (With the default {@code StaticUserWebFilter} instead, every proxied user is
 * {@code dr.who}.)
 *
 * <p>One cluster and one sleep job whose reduce outlasts the checks; killed at the end by a user
 * of {@code tide.ui.modify.acls}, which the client set as the application's MODIFY_APP ACL.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WebUiAclTest {
  private static final String VIEWER = "vera";
  private static final String STRANGER = "mallory";
  private static final String ADMIN = "yarnadmin";
  private static final String KILLER = "oscar";
  private static final String OWNER = System.getProperty("user.name");
  private static EmbeddedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    long pid = ProcessHandle.current().pid();
    SharedCluster.stop(); // this class starts a cluster of its own
    cluster = EmbeddedCluster.start("tide-acl-" + pid, 2, Path.of("target", "acl-cluster-" + pid),
        conf -> {
          conf.setBoolean("yarn.acl.enable", true);
          conf.set("yarn.admin.acl", ADMIN); // YARN's default, *, makes everyone an admin
          // The ResourceManager also lets a queue's administrators view and kill (root's
          // default, *, is everyone); the AM does not know queue ACLs.
          conf.set("yarn.scheduler.capacity.root.acl_administer_queue", ADMIN);
          conf.set("yarn.scheduler.capacity.root.default.acl_administer_queue", " ");
          conf.set("hadoop.http.filter.initializers",
              "org.apache.hadoop.security.AuthenticationFilterInitializer");
          conf.set("hadoop.http.authentication.type", "simple");
          conf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", false);
        });
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void onlyTheOwnerTheViewAclAndAdminsReadTheUiApiAndJmx() throws Exception {
    Configuration conf = cluster.clientConf();
    conf.set("tide.ui.view.acls", VIEWER);
    conf.set("tide.ui.modify.acls", KILLER);
    conf.set("tide.dynamicAllocation.maxExecutors", "1");
    long submitted = System.currentTimeMillis();
    CompletableFuture<JobRun> job = BackgroundJob.submit(conf, System.out, "sleep", "-m", "1",
        "-r", "1", "-mt", "100", "-rt", "150000");
    YarnClient yarn = cluster.yarnClient();
    ApplicationReport report = BackgroundJob.awaitRunning(yarn, job, submitted);
    ApplicationId appId = report.getApplicationId();
    String proxy = "http://" + conf.get("yarn.resourcemanager.webapp.address") + "/proxy/"
        + appId + "/";
    String jmx = "jmx?qry=Hadoop:service=TideAM,name=TideApplicationMaster";

    // The AM registers (and the proxy reaches it) before its driver has started the job.
    Await.until(Duration.ofSeconds(60), "the job in the owner's api/v1/app",
        () -> get(proxy + "api/v1/app", OWNER).body().contains("\"job\" : \"sleep\""));
    for (String user : List.of(OWNER, VIEWER, ADMIN)) {
      HttpReply overview = get(proxy, user);
      assertEquals(200, overview.code(), user + ": " + overview.body());
      assertTrue(overview.body().contains(appId.toString()), overview.body());
      HttpReply api = get(proxy + "api/v1/app", user);
      assertEquals(200, api.code(), user + ": " + api.body());
      assertTrue(api.body().contains("\"job\" : \"sleep\""), api.body());
      HttpReply metrics = get(proxy + jmx, user);
      assertEquals(200, metrics.code(), user + ": " + metrics.body());
      assertTrue(metrics.body().contains("TargetExecutors"), metrics.body());
    }
    for (String path : List.of("", "api/v1/app", jmx)) {
      HttpReply refused = get(proxy + path, STRANGER);
      assertEquals(403, refused.code(), "/" + path + ": " + refused.body());
      assertTrue(refused.body().contains("User mallory may not view " + appId + " of " + OWNER)
          && refused.body().contains("tide.ui.view.acls"), refused.body());
      assertFalse(refused.body().contains("TargetExecutors") || refused.body().contains(
          "\"job\""), refused.body());
    }
    // Straight to the AM from the proxy's host (AmIpFilter lets it through) with no proxy-user.
    HttpReply direct = get(report.getOriginalTrackingUrl() + "api/v1/app", null);
    assertEquals(403, direct.code(), direct.body());
    assertTrue(direct.body().contains("names no user"), direct.body());

    // The ResourceManager applies the same VIEW_APP ACL: a stranger's report hides the AM.
    assertEquals("N/A", as(STRANGER, y -> y.getApplicationReport(appId)).getHost());
    assertNotEquals("N/A", as(VIEWER, y -> y.getApplicationReport(appId)).getHost());
    // ... and MODIFY_APP: a stranger cannot kill it, a user of tide.ui.modify.acls can.
    Exception denied = assertThrows(Exception.class, () -> as(STRANGER, y -> {
      y.killApplication(appId);
      return null;
    }));
    StringBuilder causes = new StringBuilder();
    for (Throwable t = denied; t != null; t = t.getCause()) {
      causes.append(t).append("; "); // doAs wraps YARN's checked exception
    }
    assertTrue(causes.toString().contains(STRANGER) && causes.toString().contains("MODIFY_APP"),
        causes.toString());
    as(KILLER, y -> {
      y.killApplication(appId);
      return null;
    });
    JobRun run = job.get(60, TimeUnit.SECONDS);
    assertNotEquals(0, run.exitCode(), run.output());
    assertEquals(YarnApplicationState.KILLED,
        yarn.getApplicationReport(appId).getYarnApplicationState());
  }

  private interface YarnCall<T> {
    T call(YarnClient yarn) throws Exception;
  }

  /** {@code call} as {@code user}, over a YarnClient of that user. */
  private static <T> T as(String user, YarnCall<T> call) throws Exception {
    return UserGroupInformation.createRemoteUser(user).doAs(
        (PrivilegedExceptionAction<T>) () -> {
          try (YarnClient yarn = YarnClient.createYarnClient()) {
            yarn.init(cluster.clientConf());
            yarn.start();
            return call.call(yarn);
          }
        });
  }


  /** GET {@code url} as {@code user} ({@code user.name}, see the class comment), no redirects. */
  private static HttpReply get(String url, String user) throws IOException {
    String full = user == null ? url
        : url + (url.contains("?") ? "&" : "?") + "user.name=" + user;
    return HttpReply.of((HttpURLConnection) new URL(full).openConnection());
  }
}
