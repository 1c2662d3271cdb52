package dev.tide.driver.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  /** Whether this is a {@code name} event. */
  public boolean is(EventName name) {
    return event.equals(name.wireName());
  }

  /** This event's name; empty for an event this version does not know (readers ignore it). */
  public Optional<EventName> eventName() {
    return EventName.of(event);
  }

  /**
   * A field that must be a whole number.
   *
   * @throws IllegalArgumentException naming the event and the field when it is missing or not a
   *     whole number
   */
  public long getLong(String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalArgumentException("event " + event + " has no field " + key);
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("field " + key + " of event " + event
          + " is not a whole number: " + excerpt(value));
    }
  }

  /** A line or value as it may be quoted in one line of an error: printable ASCII, short. */
  public static String excerpt(String text) {
    StringBuilder out = new StringBuilder("'");
    for (int i = 0; i < text.length() && i < 80; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.append(text.length() > 80 ? "'..." : "'").toString();
  }

  /** A line that is not an event; {@link #cutShort} when its JSON ends before it is complete. */
  public static final class BadLineException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final boolean cutShort;

    BadLineException(String message, boolean cutShort) {
      super(message);
      this.cutShort = cutShort;
    }

    /** True when the line is the start of a JSON object (a line being written, or cut). */
    public boolean cutShort() {
      return cutShort;
    }
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

  /**
   * Parses one line of the event log; values of every type are kept as their text.
   *
   * @throws BadLineException saying what is wrong (the line is quoted only in part)
   */
  public static EventLine parse(String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (com.fasterxml.jackson.core.io.JsonEOFException e) {
      throw new BadLineException("not an event line (its JSON ends early): " + excerpt(line),
          true);
    } catch (IOException e) {
      throw new BadLineException("not an event line (not JSON): " + excerpt(line), false);
    }
    if (node == null || !node.isObject() || !node.has("time") || !node.has("event")) {
      throw new BadLineException("not an event line (no time or event): " + excerpt(line),
          false);
    }
    int schema = node.path("schema").asInt(-1);
    if (schema != SCHEMA) {
      throw new BadLineException("event line of schema " + schema + ", this reader"
          + " knows " + SCHEMA, false);
    }
    if (!node.get("time").canConvertToLong() || !node.get("time").isIntegralNumber()) {
      throw new BadLineException("time is not a whole number (epoch milliseconds): "
          + excerpt(node.get("time").toString()), false);
    }
    if (!node.get("event").isTextual() || node.get("event").asText().isEmpty()) {
      throw new BadLineException("event is not a name: " + excerpt(node.get("event").toString()),
          false);
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

  /**
   * Every event of an event log, which may be being written (empty, or its last line cut
   * short); the fields are not checked ({@link EventLogReader#read} reads a log for a report).
   *
   * @throws IllegalArgumentException naming the line and what is wrong
   */
  public static List<EventLine> readAll(InputStream in) throws IOException {
    return EventLogReader.read(in, "event log", false).events();
  }
}
