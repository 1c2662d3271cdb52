package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.job.JobArgs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventLineTest {
  @Test
  void eventLinesRoundTripWithAwkwardValues() {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("diagnostics", "Container released by application = yes, 100%");
    fields.put("exitStatus", "-100");
    EventLine line = new EventLine(42, "containerCompleted", fields);
    EventLine parsed = EventLine.parse(line.format());
    assertEquals(line, parsed);
    assertEquals(-100, parsed.getLong("exitStatus"));
  }

  @Test
  void linesAreVersionedJsonWithTypedValues() throws Exception {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("batch", 1700000002000L);
    fields.put("delayed", true);
    fields.put("taskSeconds", 1.5);
    fields.put("reason", "line\nbreak \"quoted\" \\ tab\t\u0001");
    String line = EventLine.json(7, "batchCompleted", fields);
    assertEquals("{\"schema\":1,\"time\":7,\"event\":\"batchCompleted\",\"batch\":1700000002000,"
        + "\"delayed\":true,\"taskSeconds\":1.5,\"reason\":\"line\\nbreak \\\"quoted\\\" \\\\ tab"
        + "\\t\\u0001\"}", line);
    var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
    assertEquals(true, node.get("delayed").isBoolean());
    assertEquals(true, node.get("batch").isIntegralNumber());
    EventLine parsed = EventLine.parse(line);
    assertEquals(fields.get("reason"), parsed.get("reason"));
    assertEquals(1700000002000L, parsed.getLong("batch"));
    assertEquals("true", parsed.get("delayed"));
  }

  @Test
  void aLineOfAnotherSchemaOrNotJsonIsRefusedSayingWhy() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class,
        () -> EventLine.parse("{\"schema\":2,\"time\":1,\"event\":\"x\"}"));
    assertEquals(true, e.getMessage().contains("schema 2, this reader knows 1"), e.getMessage());
    e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> EventLine.parse("42 jobStart app=x"));
    assertEquals(true, e.getMessage().startsWith("not an event line"), e.getMessage());
  }

  @Test
  void jobArgumentsSurviveSpacesCommasAndEmptyStrings() {
    List<String> args = List.of("hdfs:///in dir", "a,b", "", "x=y", "100%");
    assertEquals(args, JobArgs.decode(JobArgs.encode(args)));
    assertEquals(List.of(), JobArgs.decode(""));
  }
}
