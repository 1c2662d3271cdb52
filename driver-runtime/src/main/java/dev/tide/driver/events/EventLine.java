package dev.tide.driver.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One event of the event log, and its line: JSON, schema {@value #SCHEMA} (docs/event-log.md).
 */
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

  /** The version of the event log's line format ({@code "schema"} of every line). */
  public static final int SCHEMA = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One line of the event log: a JSON object {@code {"schema":1,"time":<epoch ms>,"event":
   * "<name>", <field>: <value> ...}}; numbers and booleans stay JSON numbers and booleans,
   * anything else is a string. Field names must not be schema, time or event.
   */
  public static String json(long timeMillis, String event, Map<String, ?> fields) {
    StringBuilder line = new StringBuilder("{\"schema\":").append(SCHEMA).append(",\"time\":")
        .append(timeMillis).append(",\"event\":");
    quote(line, event);
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      String key = field.getKey();
      if (key.equals("schema") || key.equals("time") || key.equals("event")) {
        throw new IllegalArgumentException("event field name '" + key + "' is reserved");
      }
      line.append(',');
      quote(line, key);
      line.append(':');
      Object value = field.getValue();
      if (value instanceof Boolean
          || (value instanceof Number n && Double.isFinite(n.doubleValue()))) {
        line.append(value);
      } else {
        quote(line, String.valueOf(value));
      }
    }
    return line.append('}').toString();
  }

  private static void quote(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** This event as a line of the event log. */
  String format() {
    return json(timeMillis, event, fields);
  }

  /** Parses one line of the event log; values of every type are kept as their text. */
  public static EventLine parse(String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (IOException e) {
      throw new IllegalArgumentException("not an event line (JSON): " + line, e);
    }
    if (node == null || !node.isObject() || !node.has("time") || !node.has("event")) {
      throw new IllegalArgumentException("not an event line (no time or event): " + line);
    }
    int schema = node.path("schema").asInt(-1);
    if (schema != SCHEMA) {
      throw new IllegalArgumentException("event line of schema " + schema + ", this reader"
          + " knows " + SCHEMA + ": " + line);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> field = it.next();
      String key = field.getKey();
      if (!key.equals("schema") && !key.equals("time") && !key.equals("event")) {
        fields.put(key, field.getValue().asText());
      }
    }
    return new EventLine(node.get("time").asLong(), node.get("event").asText(), fields);
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
