package dev.tide.bench.shuffleload;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server JVM wrote to its log file (slf4j-simple with {@code showDateTime} and
 * {@code dateTimeFormat=HH:mm:ss.SSS}, so a record starts {@code 12:34:56.789 [thread] LEVEL
 * logger - message}): lines and bytes, the longest line, records by level and logger, lines that
 * do not start a record (stack traces, and lines forged by a newline in a logged value; those
 * that start with {@code FORGED} are counted apart), the NUL, CR and ESC bytes in it, and the
 * lines whose first 160 bytes name an OutOfMemoryError.
 * Reads the file as bytes, in one pass, whatever its size.
 */
record ServerLog(long bytes, long lines, long longestLine, String longestLineStart,
    Map<String, Long> recordsByLevelAndLogger, long linesNotStartingARecord, long forgedLines,
    long nulBytes, long crBytes, long escBytes, long outOfMemoryLines) {
  private static final Pattern RECORD =
      Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^\\]]*\\] (\\w+) ([\\w.$]+)");
  /** Bytes of each line kept to classify it. */
  private static final int HEAD = 160;

  static ServerLog read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new ServerLog(0, 0, 0, "", Map.of(), 0, 0, 0, 0, 0, 0);
    }
    Map<String, Long> byLogger = new TreeMap<>();
    long bytes = 0;
    long lines = 0;
    long longest = 0;
    String longestStart = "";
    long notRecord = 0;
    long forged = 0;
    long nul = 0;
    long cr = 0;
    long esc = 0;
    long outOfMemory = 0;
    byte[] head = new byte[HEAD];
    int headLength = 0;
    long lineLength = 0;
    byte[] buffer = new byte[1 << 20];
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 20)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        bytes += n;
        for (int i = 0; i < n; i++) {
          byte b = buffer[i];
          if (b == '\n') {
            lines++;
            String start = new String(head, 0, headLength, StandardCharsets.UTF_8);
            Matcher m = RECORD.matcher(start);
            if (m.find()) {
              byLogger.merge(m.group(1) + " " + m.group(2), 1L, Long::sum);
            } else {
              notRecord++;
              if (start.startsWith("FORGED")) {
                forged++;
              }
            }
            if (start.contains("OutOfMemoryError") || start.contains("OutOfDirectMemoryError")) {
              outOfMemory++;
            }
            if (lineLength > longest) {
              longest = lineLength;
              longestStart = start;
            }
            headLength = 0;
            lineLength = 0;
            continue;
          }
          nul += b == 0 ? 1 : 0;
          cr += b == '\r' ? 1 : 0;
          esc += b == 0x1b ? 1 : 0;
          if (headLength < HEAD) {
            head[headLength++] = b;
          }
          lineLength++;
        }
      }
    }
    return new ServerLog(bytes, lines, longest, longestStart, byLogger, notRecord, forged, nul,
        cr, esc, outOfMemory);
  }

  /**
   * Replaces a log larger than {@code keepBytes} by its first {@code keepBytes} bytes in
   * {@code <name>.head} (the rest is counted already and would only fill the disk).
   *
   * @return the file that remains
   */
  static Path trim(Path file, long keepBytes) throws IOException {
    if (!Files.exists(file) || Files.size(file) <= keepBytes) {
      return file;
    }
    Path head = file.resolveSibling(file.getFileName() + ".head");
    try (InputStream in = Files.newInputStream(file);
        OutputStream out = Files.newOutputStream(head)) {
      out.write(in.readNBytes((int) keepBytes));
    }
    Files.delete(file);
    return head;
  }
}
