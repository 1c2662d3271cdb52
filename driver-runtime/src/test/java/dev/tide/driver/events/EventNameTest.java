package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventNameTest {
  /** The exported list, read by cluster/chaos.py; run from driver-runtime/. */
  static final Path NAMES_FILE = Path.of("..", "docs", "event-names.txt");
  /** Set to true to rewrite {@link #NAMES_FILE} from the enum. */
  static final String REGENERATE = "tide.regenerateEventNames";
  static final String HEADER = "# The event log's event names (docs/event-log.md), one per line:"
      + " generated from\n# dev.tide.driver.events.EventName by EventNameTest; read by"
      + " cluster/chaos.py.\n";

  @Test
  void theExportedListIsTheEnum() throws IOException {
    String expected = HEADER + String.join("\n", EventName.wireNames()) + "\n";
    if (Boolean.getBoolean(REGENERATE)) {
      Files.writeString(NAMES_FILE, expected, StandardCharsets.UTF_8);
    }
    String actual = Files.exists(NAMES_FILE)
        ? Files.readString(NAMES_FILE, StandardCharsets.UTF_8) : "(missing)";
    assertEquals(expected, actual, NAMES_FILE.toAbsolutePath().normalize() + " is not the list"
        + " of EventName's wire names; regenerate it with: mvn -B -o -q -pl driver-runtime -am"
        + " test -Dtest=EventNameTest -Dsurefire.failIfNoSpecifiedTests=false -D" + REGENERATE
        + "=true");
  }

  @Test
  void everyEventIsDocumented() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "event-log.md"), StandardCharsets.UTF_8);
    List<String> undocumented = new ArrayList<>();
    for (String name : EventName.wireNames()) {
      if (!doc.contains("| `" + name + "`") && !doc.contains("/ `" + name + "`")) {
        undocumented.add(name);
      }
    }
    assertEquals(List.of(), undocumented, "events without a row in docs/event-log.md's table");
  }

  @Test
  void wireNamesAreUniqueAndReadBack() {
    for (EventName name : EventName.values()) {
      assertEquals(Optional.of(name), EventName.of(name.wireName()));
      assertEquals(name.wireName(), name.toString());
    }
    assertEquals(Optional.empty(), EventName.of("noSuchEvent"));
    assertTrue(new EventLine(1, "taskEnd", java.util.Map.of()).is(EventName.TASK_END));
  }
}
