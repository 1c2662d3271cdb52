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
  void jobArgumentsSurviveSpacesCommasAndEmptyStrings() {
    List<String> args = List.of("hdfs:///in dir", "a,b", "", "x=y", "100%");
    assertEquals(args, JobArgs.decode(JobArgs.encode(args)));
    assertEquals(List.of(), JobArgs.decode(""));
  }
}
