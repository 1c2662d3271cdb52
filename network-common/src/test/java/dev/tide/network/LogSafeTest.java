package dev.tide.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class LogSafeTest {
  @Test
  void plainTextIsKeptAsIs() {
    String id = "application_1700000000000_0001";
    assertSame(id, LogSafe.text(id));
    assertEquals("null", LogSafe.text(null));
    assertEquals("caf\u00e9 \u65e5\u672c", LogSafe.text("caf\u00e9 \u65e5\u672c"));
  }

  @Test
  void controlAndLineBreakingCharactersAreEscaped() {
    assertEquals("a\\nb\\rc\\td\\0e\\u001bf\\\\n", LogSafe.text("a\nb\rc\td\0e\u001bf\\n"));
    assertEquals("x\\u2028y\\u202ez", LogSafe.text("x\u2028y\u202ez"));
  }

  @Test
  void longTextIsCutWithTheCountLeftOut() {
    assertEquals("abc...(7 more chars)", LogSafe.text("abcdefghij", 3));
    assertEquals("\\n\\n...(1 more chars)", LogSafe.text("\n\n\n", 2));
    assertEquals(LogSafe.DEFAULT_MAX_CHARS + "...(100 more chars)".length(),
        LogSafe.text("z".repeat(LogSafe.DEFAULT_MAX_CHARS + 100)).length());
  }
}
