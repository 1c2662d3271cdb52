package dev.tide.am;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tide.driver.JobStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's tracking endpoint, on an ephemeral port: {@code /status} returns the job's
 * {@link JobStatus} as {@code key=value} lines ({@link JobStatusText}), and {@code /} a short
 * page for people. Served by one daemon thread; the status supplier must be thread-safe.
 */
public final class StatusHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusHttpServer.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final String host;

  /**
   * Binds all interfaces on a free port; {@code host} is the name the tracking URL advertises.
   */
  public StatusHttpServer(String host, String applicationId, Supplier<JobStatus> status)
      throws IOException {
    this.host = host;
    this.server = HttpServer.create(new InetSocketAddress(0), 16);
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tide-status-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/status", exchange -> {
      try {
        reply(exchange, 200, JobStatusText.format(status.get()));
      } catch (RuntimeException e) {
        LOG.debug("Status unavailable", e);
        reply(exchange, 503, "status unavailable: " + e + "\n");
      }
    });
    server.createContext("/", exchange -> {
      if (!exchange.getRequestURI().getPath().equals("/")) {
        reply(exchange, 404, "not found; try / or /status\n");
        return;
      }
      String body;
      try {
        JobStatus s = status.get();
        body = "Tide application " + applicationId + "\n\njob " + s.jobName() + ": "
            + s.describe() + String.format(", progress %.0f%%", s.progress() * 100)
            + "\npending tasks " + s.pendingTasks() + ", running tasks " + s.runningTasks()
            + "\n\nmachine-readable: /status\n";
      } catch (RuntimeException e) {
        body = "Tide application " + applicationId + "\n\nstatus unavailable: " + e + "\n";
      }
      reply(exchange, 200, body);
    });
  }

  public void start() {
    server.start();
    LOG.info("Status server at {}", trackingUrl());
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://host:port/}, as registered with the RM. */
  public String trackingUrl() {
    return "http://" + host + ":" + port() + "/";
  }

  private static void reply(HttpExchange exchange, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
