package dev.tide.am.client;

import dev.tide.am.web.JobStatusText;
import dev.tide.driver.JobStatus;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Fetches a running application's {@link JobStatus} from its AM's {@code /status} endpoint,
 * given the tracking URL the AM registered (the report's original tracking URL, which may lack
 * the scheme). Stateless and thread-safe.
 */
public final class AmStatusClient {
  private final int timeoutMs;

  public AmStatusClient(Duration timeout) {
    this.timeoutMs = (int) Math.max(1, timeout.toMillis());
  }

  /** The status URL for a tracking URL, or empty when the AM has not registered one yet. */
  public static Optional<String> statusUrl(String trackingUrl) {
    if (trackingUrl == null || trackingUrl.isBlank() || trackingUrl.trim().equals("N/A")) {
      return Optional.empty();
    }
    String url = trackingUrl.trim();
    if (!url.contains("://")) {
      url = "http://" + url;
    }
    while (url.endsWith("/")) {
      url = url.substring(0, url.length() - 1);
    }
    return Optional.of(url + "/status");
  }

  /** @throws IOException with the URL when the AM cannot be reached or answers badly */
  public JobStatus fetch(String statusUrl) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) new URL(statusUrl).openConnection();
    connection.setConnectTimeout(timeoutMs);
    connection.setReadTimeout(timeoutMs);
    try {
      int code = connection.getResponseCode();
      if (code != 200) {
        throw new IOException("GET " + statusUrl + " answered " + code);
      }
      try (InputStream in = connection.getInputStream()) {
        return JobStatusText.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new IOException("bad status from " + statusUrl + ": " + e.getMessage(), e);
      }
    } finally {
      connection.disconnect();
    }
  }
}
