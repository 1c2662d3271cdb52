package dev.tide.am.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servlet filter that applies {@link ViewAccess} to every path of the AM's web server (pages,
 * {@code /api/v1}, {@code /jmx} and Hadoop's other servlets, {@code /logs}) but {@code /status},
 * which the submission client polls directly for its progress line. It runs after YARN's
 * {@code AmIpFilter}, which makes the user named by the ResourceManager's proxy (its
 * {@code proxy-user} cookie) the request's remote user. A refused request gets 403 with a short
 * body saying who was refused and which settings grant access: JSON for {@code /api/} and
 * {@code /jmx}, HTML otherwise. Configured by {@link ViewAccess#parameters()}; groups are looked
 * up with Hadoop's group mapping ({@code hadoop.security.group.mapping}, cached by Hadoop).
 */
public final class ViewAclFilter implements Filter {
  private static final Logger LOG = LoggerFactory.getLogger(ViewAclFilter.class);
  /** What the submission client polls; it carries progress counts only. */
  static final String UNCHECKED_PATH = "/status";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ViewAccess access;

  @Override
  public void init(FilterConfig config) {
    access = ViewAccess.fromParameters(config::getInitParameter);
    LOG.info("Web UI of {} behind application ACLs: yarn.acl.enable {}, owner {}, view ACL '{}',"
        + " admins '{}'", access.application(), access.enabled(), access.owner(),
        access.view().text(), access.admins().text());
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    String path = request.getRequestURI();
    if (UNCHECKED_PATH.equals(path)) {
      chain.doFilter(req, resp);
      return;
    }
    String user = request.getRemoteUser();
    ViewAccess.Decision decision = access.decide(user, ViewAclFilter::groupsOf);
    if (decision.allowed()) {
      LOG.debug("Serving {} to {}: {}", path, user, decision.reason());
      chain.doFilter(req, resp);
      return;
    }
    LOG.info("Refused {} to {}: {}", path, user == null ? "a request with no user" : user,
        decision.reason());
    refuse((HttpServletResponse) resp, path, user, decision.reason());
  }

  private static Collection<String> groupsOf(String user) {
    // Hadoop's mapping logs and answers no groups for a user it cannot resolve.
    return Arrays.asList(UserGroupInformation.createRemoteUser(user).getGroupNames());
  }

  private void refuse(HttpServletResponse response, String path, String user, String reason)
      throws IOException {
    String type;
    String body;
    if (path.startsWith("/api/") || path.startsWith("/jmx")) {
      Map<String, Object> error = new LinkedHashMap<>();
      error.put("error", "forbidden");
      error.put("user", user);
      error.put("application", access.application());
      error.put("message", reason);
      type = "application/json";
      body = json(error) + "\n";
    } else {
      type = "text/html";
      body = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>403 "
          + Html.escape(access.application()) + "</title></head><body><h1>403: not allowed</h1>"
          + "<p>" + Html.escape(reason) + "</p></body></html>\n";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(HttpServletResponse.SC_FORBIDDEN);
    response.setContentType(type + "; charset=utf-8");
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  private static String json(Map<String, Object> fields) {
    try {
      return JSON.writeValueAsString(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the refusal as JSON", e);
    }
  }

  @Override
  public void destroy() {}
}
