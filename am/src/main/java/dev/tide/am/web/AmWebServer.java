package dev.tide.am.web;

import dev.tide.driver.JobStatus;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.HttpServer2;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's web UI at the tracking URL, served by Hadoop's {@link HttpServer2} (which brings
 * {@code /jmx}, {@code /conf}, {@code /stacks} and {@code /logLevel}) behind YARN's
 * {@code AmIpFilter}, so people reach it through the ResourceManager's proxy as for any YARN
 * application: the pages Overview ({@code /}), {@code /stages}, {@code /executors} and
 * {@code /allocation}; the JSON API {@code /api/v1/<resource>} (docs/web-ui.md); and
 * {@code /status}, the job's status as {@code key=value} lines ({@link JobStatusText}) that the
 * client polls. With YARN's application ACLs on, everything but {@code /status} answers only the
 * users {@link ViewAccess} allows ({@link ViewAclFilter}).
 */
public final class AmWebServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AmWebServer.class);
  private static final String STATUS = "ui.status";
  private static final String MODEL = "ui.model";
  static final String AM_FILTER_INITIALIZER =
      "org.apache.hadoop.yarn.server.webproxy.amfilter.AmFilterInitializer";
  private static final String STATIC_USER_FILTER = "org.apache.hadoop.http.lib.StaticUserWebFilter";
  private static final String VIEW_ACL_FILTER = "tide_view_acl";

  private final HttpServer2 server;
  private final String host;

  /** Without access control ({@link ViewAccess#OPEN}). */
  public AmWebServer(Configuration conf, String host, Supplier<JobStatus> status, AppModel model,
      boolean proxied) throws IOException {
    this(conf, host, status, model, proxied, ViewAccess.OPEN);
  }

  /**
   * Binds all interfaces on a free port; {@code host} is the name the tracking URL advertises.
   *
   * @param proxied whether to install YARN's AmIpFilter (in a container launched by YARN)
   * @param access who may read the UI; when {@link ViewAccess#enabled()}, every path but
   *     {@code /status} is behind a {@link ViewAclFilter}, and Hadoop's HTTP authentication and
   *     static-user filters are left out: the user is the one the ResourceManager's proxy names
   */
  public AmWebServer(Configuration conf, String host, Supplier<JobStatus> status, AppModel model,
      boolean proxied, ViewAccess access) throws IOException {
    this.host = host;
    Configuration httpConf = new Configuration(conf);
    if (access.enabled()) {
      withoutUserFilters(httpConf);
    }
    if (proxied && !onClasspath(AM_FILTER_INITIALIZER)) {
      LOG.warn("{} is not on the classpath (hadoop-yarn-server-web-proxy): the web UI is served"
          + " without YARN's AmIpFilter", AM_FILTER_INITIALIZER);
    } else if (proxied) {
      String initializers = httpConf.getTrimmed(HttpServer2.FILTER_INITIALIZER_PROPERTY, "");
      if (!initializers.contains(AM_FILTER_INITIALIZER)) {
        httpConf.set(HttpServer2.FILTER_INITIALIZER_PROPERTY, initializers.isEmpty()
            ? AM_FILTER_INITIALIZER : initializers + "," + AM_FILTER_INITIALIZER);
      }
    }
    server = new HttpServer2.Builder().setName("tide").addEndpoint(URI.create("http://0.0.0.0:0"))
        .setFindPort(true).setConf(httpConf).build();
    if (access.enabled()) {
      // After the AmIpFilter (added while building), which sets the proxy's user.
      server.addFilter(VIEW_ACL_FILTER, ViewAclFilter.class.getName(), access.parameters());
    }
    server.setAttribute(STATUS, status);
    server.setAttribute(MODEL, model);
    server.addServlet("status", "/status", StatusServlet.class);
    server.addServlet("api", "/api/v1/*", ApiServlet.class);
    for (String[] page : UiPages.PAGES) {
      if (!page[0].isEmpty()) {
        server.addServlet(page[0], "/" + page[0], PageServlet.class);
      }
    }
    server.addServlet("overview", "/index.html", PageServlet.class);
    server.addServlet("root", "", PageServlet.class);
  }

  /**
   * Drops the filters of {@code hadoop.http.filter.initializers} that set the request's user
   * themselves: an AM behind the ResourceManager's proxy learns its user from the proxy
   * (AmIpFilter), has no HTTP keytab for SPNEGO, and must not take a {@code user.name} parameter
   * or the static user ({@code dr.who}) for the user.
   */
  static void withoutUserFilters(Configuration httpConf) {
    List<String> kept = new ArrayList<>();
    for (String initializer : httpConf.getTrimmedStrings(HttpServer2.FILTER_INITIALIZER_PROPERTY)) {
      if (initializer.endsWith("AuthenticationFilterInitializer")
          || initializer.equals(STATIC_USER_FILTER)) {
        LOG.info("Web UI: leaving out {} (the ResourceManager's proxy names the user)",
            initializer);
      } else {
        kept.add(initializer);
      }
    }
    httpConf.set(HttpServer2.FILTER_INITIALIZER_PROPERTY, String.join(",", kept));
  }

  private static boolean onClasspath(String className) {
    try {
      Class.forName(className, false, AmWebServer.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  public void start() throws IOException {
    server.start();
    LOG.info("Web UI at {}", trackingUrl());
  }

  public int port() {
    return server.getConnectorAddress(0).getPort();
  }

  /** {@code http://host:port/}, as registered with the RM. */
  public String trackingUrl() {
    return "http://" + host + ":" + port() + "/";
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  private static void reply(HttpServletResponse response, int code, String type, String body)
      throws IOException {
    response.setStatus(code);
    response.setContentType(type + "; charset=utf-8");
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /** {@code /status}: {@link JobStatusText}; 503 before the driver runs. */
  public static final class StatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    @SuppressWarnings("unchecked")
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      Supplier<JobStatus> status =
          (Supplier<JobStatus>) getServletContext().getAttribute(STATUS);
      try {
        reply(response, 200, "text/plain", JobStatusText.format(status.get()));
      } catch (RuntimeException e) {
        LOG.debug("Status unavailable", e);
        reply(response, 503, "text/plain", "status unavailable: " + e + "\n");
      }
    }
  }

  /** The HTML pages. */
  public static final class PageServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String path = request.getServletPath().replaceFirst("^/", "");
      if (path.equals("index.html")) {
        path = "";
      }
      if (!path.isEmpty() && UiPages.PAGES.stream().noneMatch(p -> p[0].equals(
          request.getServletPath().substring(1)))) {
        reply(response, 404, "text/plain", "no page " + path + "\n");
        return;
      }
      java.util.Map<String, String> query = new java.util.HashMap<>();
      request.getParameterMap().forEach((key, values) -> query.put(key, values[0]));
      reply(response, 200, "text/html", UiPages.page(path, query,
          (AppModel) getServletContext().getAttribute(MODEL)));
    }
  }

  /** {@code /api/v1/<resource>}. */
  public static final class ApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String resource = request.getPathInfo() == null ? ""
          : request.getPathInfo().replaceFirst("^/", "");
      Optional<String> json = JsonApi.render(resource,
          (AppModel) getServletContext().getAttribute(MODEL));
      if (json.isEmpty()) {
        reply(response, 404, "application/json", "{\"error\":\"no resource '"
            + resource.replaceAll("[^A-Za-z0-9_/-]", "?") + "'; resources: "
            + String.join(", ", JsonApi.RESOURCES) + "\"}\n");
        return;
      }
      reply(response, 200, "application/json", json.get());
    }
  }
}
