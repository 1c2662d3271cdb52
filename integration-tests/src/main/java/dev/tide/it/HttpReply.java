package dev.tide.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;

/** What a web server answered to one GET: its status code and body (an error's body too). */
public record HttpReply(int code, String body) {
  /**
   * Sends {@code connection}'s request as it is (no redirects followed, 10 s to connect, 30 s to
   * read) and reads the answer.
   */
  public static HttpReply of(HttpURLConnection connection) throws IOException {
    connection.setInstanceFollowRedirects(false);
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(30_000);
    int code = connection.getResponseCode();
    InputStream in = code < 400 ? connection.getInputStream() : connection.getErrorStream();
    return new HttpReply(code, in == null ? "" : new String(in.readAllBytes(),
        StandardCharsets.UTF_8));
  }
}
