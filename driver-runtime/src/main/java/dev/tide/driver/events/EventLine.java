package dev.tide.driver.events;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One event of the event log, and its one-line text form. */
public record EventLine(long timeMillis, String event, Map<String, String> fields) {
  public EventLine {
    fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  public String get(String key) {
    return fields.get(key);
  }

  public long getLong(String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalStateException("event " + event + " has no field " + key);
    }
    return Long.parseLong(value);
  }

  String format() {
    StringBuilder line = new StringBuilder().append(timeMillis).append(' ').append(event);
    // Keep the insertion order of the caller for readability.
    for (Map.Entry<String, String> field : fields.entrySet()) {
      line.append(' ').append(field.getKey()).append('=')
          .append(URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8));
    }
    return line.toString();
  }

  public static EventLine parse(String line) {
    String[] parts = line.trim().split(" ");
    if (parts.length < 2) {
      throw new IllegalArgumentException("not an event line: " + line);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 2; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("bad field '" + parts[i] + "' in event line: " + line);
      }
      fields.put(parts[i].substring(0, eq),
          URLDecoder.decode(parts[i].substring(eq + 1), StandardCharsets.UTF_8));
    }
    return new EventLine(Long.parseLong(parts[0]), parts[1], fields);
  }

  public static List<EventLine> readAll(InputStream in) throws IOException {
    List<EventLine> events = new ArrayList<>();
    try (BufferedReader reader = new BufferedReader(
        new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (!line.isBlank()) {
          events.add(parse(line));
        }
      }
    }
    return events;
  }
}
