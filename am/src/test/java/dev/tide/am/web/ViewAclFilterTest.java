package dev.tide.am.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tide.driver.JobStatus;
import dev.tide.driver.events.EventLine;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The AM's web server behind application ACLs, over real HTTP and through YARN's real
 * AmIpFilter, reached as the ResourceManager's proxy reaches it: from the proxy's host (here
 * 127.0.0.1, the ResourceManager's web address), naming its user in the {@code proxy-user}
 * cookie. The AM's configuration also asks for Hadoop's HTTP authentication filter (simple, no
 * anonymous users), as a cluster's core-site may: the AM leaves it out.
 */
class ViewAclFilterTest {
  private static final JobStatus STATUS =
      new JobStatus("sleep", 1, 2, 12, 40, 20, 8, 3, 4, 0.3f, "", "");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static AmWebServer server;
  private static AmWebServer open;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.set("yarn.resourcemanager.webapp.address", "127.0.0.1:8088");
    conf.set("hadoop.http.filter.initializers",
        "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.set("hadoop.http.authentication.type", "simple");
    conf.set("hadoop.http.authentication.simple.anonymous.allowed", "false");
    AppModel model = new AppModel();
    model.apply(EventLine.parse(EventLine.json(1000, "jobStart",
        Map.of("app", "application_1_0001", "job", "sleep", "user", "owen"))));
    ViewAccess access = new ViewAccess(true, "application_1_0001", "owen",
        ViewAccess.Acl.parse("vera"), ViewAccess.Acl.parse("root"),
        "tide.ui.view.acls (users) or tide.ui.view.acls.groups (groups)");
    server = new AmWebServer(conf, "127.0.0.1", () -> STATUS, model, true, access);
    server.start();
    Configuration plain = new Configuration();
    plain.set("yarn.resourcemanager.webapp.address", "127.0.0.1:8088");
    open = new AmWebServer(plain, "127.0.0.1", () -> STATUS, model, true);
    open.start();
  }

  @AfterAll
  static void stop() throws Exception {
    for (AmWebServer s : new AmWebServer[] {server, open}) {
      if (s != null) {
        s.close();
      }
    }
  }

  /** The pages, the JSON API and /jmx. */
  private static final List<String> PATHS =
      List.of("", "stages", "executors", "allocation", "api/v1/app", "api/v1/executors", "jmx");
  /** Hadoop's other servlets, behind the same filter (slower to serve: only refused here). */
  private static final List<String> HADOOPS = List.of("conf", "stacks", "logLevel");

  @Test
  void theSubmittingUserAUserOfTheViewAclAndAnAdminReadEverything() throws IOException {
    for (String user : List.of("owen", "vera", "root")) {
      for (String path : PATHS) {
        Reply reply = get(server, path, user);
        assertEquals(200, reply.code(), user + " GET /" + path + ": " + reply.body());
      }
      assertTrue(get(server, "api/v1/app", user).body().contains("\"job\" : \"sleep\""));
      assertTrue(get(server, "jmx", user).body().contains("\"beans\""));
    }
  }

  @Test
  void anotherUserGets403SayingWhoAndWhichSettingGrantsAccess() throws IOException {
    for (String path : concat(PATHS, HADOOPS)) {
      Reply reply = get(server, path, "mallory");
      assertEquals(403, reply.code(), "GET /" + path + ": " + reply.body());
      assertTrue(reply.body().contains("User mallory may not view application_1_0001 of owen")
          && reply.body().contains("tide.ui.view.acls (users) or tide.ui.view.acls.groups"),
          reply.body());
      assertTrue(!reply.body().contains("sleep"), "nothing of the job: " + reply.body());
    }
    JsonNode api = JSON.readTree(get(server, "api/v1/stages", "mallory").body());
    assertEquals("forbidden", api.get("error").asText());
    assertEquals("mallory", api.get("user").asText());
    assertEquals("application_1_0001", api.get("application").asText());
    assertTrue(api.get("message").asText().contains("users: vera; groups: none"), api.toString());
    Reply page = get(server, "executors", "mallory");
    assertTrue(page.type().startsWith("text/html") && page.body().contains("<h1>403: not allowed"),
        page.type() + " " + page.body());
    assertTrue(get(server, "jmx", "mallory").type().startsWith("application/json"));
  }

  @Test
  void aRequestWithoutAUserIsRefused() throws IOException {
    for (String path : concat(PATHS, HADOOPS)) {
      Reply reply = get(server, path, null);
      assertEquals(403, reply.code(), "GET /" + path + ": " + reply.body());
      assertTrue(reply.body().contains("The request names no user"), reply.body());
    }
    Reply claimed = get(server, "api/v1/app?user.name=owen", null);
    assertEquals(403, claimed.code(), "user.name is not an identity on the AM: "
        + claimed.body());
  }

  /** The client polls /status directly, with no user; it carries progress counts only. */
  @Test
  void statusStaysOpenForTheClient() throws IOException {
    for (String user : new String[] {null, "mallory"}) {
      Reply reply = get(server, "status", user);
      assertEquals(200, reply.code(), reply.body());
      assertTrue(reply.body().contains("jobName=sleep"), reply.body());
    }
  }

  @Test
  void withAclsOffEveryoneReads() throws IOException {
    for (String path : List.of("", "api/v1/app", "jmx")) {
      assertEquals(200, get(open, path, "mallory").code(), path);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }

  private record Reply(int code, String type, String body) {}

  /** GET as the proxy does: from 127.0.0.1, the user in the proxy-user cookie. */
  private static Reply get(AmWebServer to, String path, String user) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + to.port() + "/"
        + path).openConnection();
    c.setInstanceFollowRedirects(false);
    if (user != null) {
      c.setRequestProperty("Cookie", "proxy-user=" + user);
    }
    int code = c.getResponseCode();
    InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
    String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    return new Reply(code, String.valueOf(c.getContentType()), body);
  }
}
