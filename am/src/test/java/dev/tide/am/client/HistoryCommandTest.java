package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tide history} and {@code tide timeline} on bad, unfinished and ended event logs, as a
 * user runs them on a file: a bad log is one line naming the file, the line and what is wrong
 * (exit 1, no report); an unfinished one is reported as incomplete, ending at its last event.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HistoryCommandTest {
  private static final String START = "{\"schema\":1,\"time\":1000,\"event\":\"jobStart\","
      + "\"app\":\"application_1_0001\",\"job\":\"wordcount\",\"user\":\"bob\"}";
  private static final String EXECUTOR = "{\"schema\":1,\"time\":2000,\"event\":"
      + "\"executorAdded\",\"executor\":\"1\",\"host\":\"h1\"}";
  private static final String STAGE = "{\"schema\":1,\"time\":2500,\"event\":"
      + "\"stageSubmitted\",\"stage\":0,\"name\":\"map\",\"tasks\":4,\"parents\":\"[]\"}";
  private static final String SAMPLE = "{\"schema\":1,\"time\":3000,\"event\":\"timeline\","
      + "\"target\":1,\"executors\":1,\"pendingTasks\":3,\"runningTasks\":1}";

  @TempDir
  Path dir;
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final TideClient client =
      new TideClient(new PrintStream(output, true, StandardCharsets.UTF_8));

  @Test
  void aNonNumericFieldIsOneLineNamingFileAndLine() throws Exception {
    Path log = write("bad.events", START, EXECUTOR, SAMPLE.replace("\"target\":1",
        "\"target\":\"many\""));
    assertBadLog(log, "line 3", "target", "many");
  }

  @Test
  void aMissingFieldIsOneLineNamingFileAndLine() throws Exception {
    Path log = write("missing.events", START, STAGE.replace(",\"tasks\":4", ""), SAMPLE);
    assertBadLog(log, "line 2", "stageSubmitted", "tasks");
  }

  @Test
  void aLineThatIsNotJsonIsNamedByItsNumber() throws Exception {
    Path log = write("notjson.events", START, "this is not json", SAMPLE);
    assertBadLog(log, "line 2", "JSON");
  }

  @Test
  void anEmptyFileIsABadLog() throws Exception {
    Path log = write("empty.events");
    assertBadLog(log, "empty");
  }

  @Test
  void binaryDataIsNotPrinted() throws Exception {
    Path log = dir.resolve("binary.events");
    byte[] bytes = new byte[200];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 37 + 1);
    }
    Files.write(log, bytes);
    assertBadLog(log, "line 1");
    for (char c : output().toCharArray()) {
      assertTrue(c == '\n' || c >= 0x20 && c < 0x7f, "printable output only: " + output());
    }
  }

  @Test
  void aGzipLogIsRead() throws Exception {
    Path log = dir.resolve("app.events.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(log))) {
      out.write(String.join("\n", START, EXECUTOR, SAMPLE, end(4000, "succeeded", true))
          .getBytes(StandardCharsets.UTF_8));
    }
    Path report = dir.resolve("gz.html");
    assertEquals(0, run("history", log.toString(), report.toString()), output());
    assertTrue(output().contains("(succeeded)"), output());
  }

  @Test
  void aTruncatedLastLineIsDroppedAndSaidSo() throws Exception {
    Path log = write("truncated.events", START, EXECUTOR, SAMPLE,
        "{\"schema\":1,\"time\":3500,\"event\":\"timel");
    Path report = dir.resolve("truncated.html");
    assertEquals(0, run("history", log.toString(), report.toString()), output());
    assertTrue(output().contains("line 4") && output().contains("truncated"), output());
    assertTrue(Files.exists(report));
  }

  @Test
  void aLogWithoutJobEndIsIncompleteAndEndsAtItsLastEvent() throws Exception {
    Path log = write("unfinished.events", START, EXECUTOR, SAMPLE);
    Path report = dir.resolve("unfinished.html");
    assertEquals(0, run("history", log.toString(), report.toString()), output());
    assertTrue(output().contains("(incomplete)"), output());
    String html = Files.readString(report);
    assertTrue(html.contains("<th>State</th><td>incomplete"), html);
    assertTrue(html.contains("<th>Duration</th><td>2.0 s</td>"), "first to last event: " + html);
    output.reset();
    assertEquals(0, run("timeline", log.toString()), output());
    assertTrue(output().contains("incomplete"), output());
  }

  @Test
  void aKilledJobIsShownKilled() throws Exception {
    Path log = write("killed.events", START, EXECUTOR, SAMPLE,
        end(4000, "killed", false).replace("}", ",\"state\":\"killed\"}"));
    Path report = dir.resolve("killed.html");
    assertEquals(0, run("history", log.toString(), report.toString()), output());
    assertTrue(output().contains("(killed)"), output());
    output.reset();
    assertEquals(0, run("timeline", log.toString()), output());
    assertTrue(output().contains("job killed"), output());
  }

  @Test
  void aFailedJobsEndClosesItsOpenExecutorsAndStages() throws Exception {
    Path log = write("failed.events", START, EXECUTOR, STAGE, SAMPLE,
        end(4000, "stage 0 failed 4 times", false));
    Path report = dir.resolve("failed.html");
    assertEquals(0, run("history", log.toString(), report.toString()), output());
    assertTrue(output().contains("(failed)"), output());
    String html = Files.readString(report);
    assertTrue(html.contains("<th>Executors</th><td>0 running"), html);
    assertFalse(html.contains(">running</td>"), "no executor or stage is left running: " + html);
    assertTrue(html.contains(">failed</td>"), "the open stage failed with the job: " + html);
  }

  private void assertBadLog(Path log, String... expected) throws Exception {
    Path report = dir.resolve("report.html");
    assertEquals(1, run("history", log.toString(), report.toString()), output());
    List<String> lines = output().lines().toList();
    assertEquals(1, lines.size(), "one line: " + output());
    assertTrue(lines.get(0).contains(log.getFileName().toString()), output());
    for (String what : expected) {
      assertTrue(lines.get(0).contains(what), "'" + what + "' in: " + output());
    }
    assertFalse(Files.exists(report), "no report of a bad log");
    output.reset();
    assertEquals(1, run("timeline", log.toString()), output());
    assertEquals(lines, output().lines().toList(), "timeline says the same");
  }

  private static String end(long time, String diagnostics, boolean succeeded) {
    return "{\"schema\":1,\"time\":" + time + ",\"event\":\"jobEnd\",\"succeeded\":" + succeeded
        + ",\"diagnostics\":\"" + diagnostics + "\"}";
  }

  private Path write(String name, String... lines) throws IOException {
    Path log = dir.resolve(name);
    Files.writeString(log, lines.length == 0 ? "" : String.join("\n", lines)
        + (lines[lines.length - 1].endsWith("}") ? "\n" : ""));
    return log;
  }

  private int run(String... args) throws Exception {
    client.setConf(new Configuration(false));
    return client.run(args);
  }

  private String output() {
    return output.toString(StandardCharsets.UTF_8);
  }
}
