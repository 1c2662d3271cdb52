package dev.tide.driver.events;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * Reads a whole event log (docs/event-log.md) strictly: every line must be an event whose
 * fields the readers rely on are sound ({@link EventSchema}), else the log is refused with one
 * {@link BadEventLogException} naming the line and what is wrong. Two things are tolerated: a
 * gzip-compressed log is read through, and a last line whose JSON ends early (a log being
 * written, or one whose writer died mid-line, as Spark tolerates in an in-progress log) is
 * dropped, and the result says so.
 */
public final class EventLogReader {
  private static final int GZIP_MAGIC = 0x8b1f;

  private EventLogReader() {}

  /**
   * The events of a log, each with its line number (1-based), and what was dropped.
   *
   * @param dropped a line that was cut short and left out ("line 12: ..."), or empty
   */
  public record Log(List<EventLine> events, List<Integer> lines, Optional<String> dropped) {}

  /** A log that cannot be read: which line, what is wrong. */
  public static final class BadEventLogException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    BadEventLogException(String name, int line, String problem) {
      super(name + " line " + line + ": " + problem);
    }
  }

  /**
   * Reads the whole stream (plain or gzip) and closes it.
   *
   * @param name the log's name for messages (its path)
   * @throws BadEventLogException naming {@code name}, the line and what is wrong
   */
  public static Log read(InputStream in, String name) throws IOException {
    return read(in, name, true);
  }

  /**
   * As {@link #read(InputStream, String)}, but with {@code strict} false an empty log is no
   * error and the fields are not checked (for tests that read a log being written).
   */
  static Log read(InputStream in, String name, boolean strict) throws IOException {
    byte[] bytes;
    try (InputStream stream = new BufferedInputStream(in)) {
      stream.mark(2);
      int magic = stream.read() | (stream.read() << 8);
      stream.reset();
      try {
        bytes = (magic == GZIP_MAGIC ? new GZIPInputStream(stream) : stream).readAllBytes();
      } catch (java.util.zip.ZipException | java.io.EOFException e) {
        throw new BadEventLogException(name, 1, "damaged gzip data (" + e.getMessage() + ")");
      }
    }
    String text = decode(bytes, name);
    String[] lines = text.split("\n", -1);
    List<EventLine> events = new ArrayList<>();
    List<Integer> numbers = new ArrayList<>();
    int last = lines.length - 1;
    while (last >= 0 && lines[last].isBlank()) {
      last--;
    }
    Optional<String> dropped = Optional.empty();
    for (int i = 0; i <= last; i++) {
      String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1)
          : lines[i];
      if (line.isBlank()) {
        continue;
      }
      EventLine event;
      try {
        event = EventLine.parse(line);
      } catch (EventLine.BadLineException e) {
        if (i == last && e.cutShort() && !events.isEmpty()) {
          dropped = Optional.of("line " + (i + 1) + " is cut short (a log being written, or"
              + " one whose writer stopped mid-line): left out");
          break;
        }
        throw new BadEventLogException(name, i + 1, e.getMessage());
      }
      Optional<String> problem = strict ? EventSchema.problem(event) : Optional.empty();
      if (problem.isPresent()) {
        throw new BadEventLogException(name, i + 1, problem.get());
      }
      events.add(event);
      numbers.add(i + 1);
    }
    if (events.isEmpty() && strict) {
      throw new BadEventLogException(name, 1, "no event: the file is empty");
    }
    return new Log(events, numbers, dropped);
  }

  /** The bytes as UTF-8 text; bytes that are not (binary data) are refused naming the line. */
  private static String decode(byte[] bytes, String name) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      throw new BadEventLogException(name, lineAt(bytes, in.position()),
          "binary data, not text (byte " + in.position() + " is not UTF-8)");
    }
    decoder.flush(out);
    String text = out.flip().toString();
    int nul = text.indexOf('\0');
    if (nul >= 0) {
      throw new BadEventLogException(name, lineAt(bytes, text.substring(0, nul)
          .getBytes(StandardCharsets.UTF_8).length), "binary data, not text (a NUL byte)");
    }
    return text;
  }

  private static int lineAt(byte[] bytes, int offset) {
    int line = 1;
    for (int i = 0; i < offset && i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        line++;
      }
    }
    return line;
  }
}
