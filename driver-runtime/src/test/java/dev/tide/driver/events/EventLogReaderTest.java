package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** Reading a whole event log: what is refused (naming the line), what is tolerated. */
class EventLogReaderTest {
  private static final String START =
      "{\"schema\":1,\"time\":1,\"event\":\"jobStart\",\"app\":\"a\",\"job\":\"j\"}";
  private static final String SAMPLE = "{\"schema\":1,\"time\":2,\"event\":\"timeline\","
      + "\"target\":1,\"executors\":1,\"pendingTasks\":0,\"runningTasks\":1}";

  private static EventLogReader.Log read(byte[] bytes) throws IOException {
    return EventLogReader.read(new ByteArrayInputStream(bytes), "x.events");
  }

  private static EventLogReader.Log read(String text) throws IOException {
    return read(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String refused(String text) {
    return assertThrows(EventLogReader.BadEventLogException.class, () -> read(text))
        .getMessage();
  }

  @Test
  void eachEventKeepsItsLineNumberPastBlankLines() throws IOException {
    EventLogReader.Log log = read(START + "\n\n" + SAMPLE + "\r\n");
    assertEquals(List.of(1, 3), log.lines());
    assertEquals(Optional.empty(), log.dropped());
  }

  @Test
  void badLinesAreRefusedNamingTheLine() {
    assertEquals("x.events line 2: field executors of event timeline is not a whole number:"
        + " 'two'", refused(START + "\n" + SAMPLE.replace("\"executors\":1",
            "\"executors\":\"two\"") + "\n"));
    assertEquals("x.events line 1: event jobStart has no field job",
        refused(START.replace(",\"job\":\"j\"", "") + "\n"));
    assertTrue(refused(START + "\n{\"schema\":1,\"time\":\"noon\",\"event\":\"x\"}\n" + SAMPLE)
        .startsWith("x.events line 2: time is not a whole number"));
    assertTrue(refused("{\"schema\":1,\"time\":1,\"event\":\"jobEnd\",\"succeeded\":true,"
        + "\"state\":\"gone\"}\n").contains("state of event jobEnd is not one of [succeeded,"
        + " failed, killed]"));
    assertEquals("x.events line 1: no event: the file is empty", refused("\n \n"));
  }

  @Test
  void aCutLastLineIsLeftOutButACutLineInTheMiddleIsNot() throws IOException {
    EventLogReader.Log log = read(START + "\n" + SAMPLE + "\n{\"schema\":1,\"ti");
    assertEquals(2, log.events().size());
    assertTrue(log.dropped().orElseThrow().startsWith("line 3 is cut short"));
    assertTrue(refused(START + "\n{\"schema\":1,\"ti\n" + SAMPLE).startsWith("x.events line 2:"
        + " not an event line (its JSON ends early)"));
  }

  @Test
  void gzipIsReadThroughAndBinaryIsRefusedWithoutQuotingIt() throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write((START + "\n" + SAMPLE + "\n").getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(2, read(gz.toByteArray()).events().size());
    byte[] binary = (START + "\n\u0000\u0001garbage\n").getBytes(StandardCharsets.UTF_8);
    String message = assertThrows(EventLogReader.BadEventLogException.class,
        () -> read(binary)).getMessage();
    assertEquals("x.events line 2: binary data, not text (a NUL byte)", message);
    byte[] notUtf8 = {'{', (byte) 0xff, (byte) 0xfe, '\n'};
    assertTrue(assertThrows(EventLogReader.BadEventLogException.class, () -> read(notUtf8))
        .getMessage().startsWith("x.events line 1: binary data, not text"));
  }
}
