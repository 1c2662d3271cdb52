package dev.tide.driver.job;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How a job's arguments travel in its settings ({@code tide.job.args}): each argument
 * percent-encoded, joined by spaces, so arguments with spaces, commas or '=' survive intact.
 */
public final class JobArgs {
  private JobArgs() {}

  public static String encode(List<String> args) {
    List<String> encoded = new ArrayList<>();
    for (String arg : args) {
      encoded.add(arg.isEmpty() ? "%" : URLEncoder.encode(arg, StandardCharsets.UTF_8));
    }
    return String.join(" ", encoded);
  }

  public static List<String> decode(String text) {
    List<String> args = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return args;
    }
    for (String part : text.trim().split(" +")) {
      args.add(part.equals("%") ? "" : URLDecoder.decode(part, StandardCharsets.UTF_8));
    }
    return args;
  }
}
