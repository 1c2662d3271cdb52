package dev.tide.input;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads the lines of a file range with the usual text-input rule, so that every line is read by
 * exactly one range: a range that does not start at 0 skips up to and including the first newline,
 * and every range reads the line that crosses its end.
 *
 * <p>Each line comes with where it starts ({@link Line}: the file and the byte offset of its
 * first byte, as the key of MapReduce's {@code TextInputFormat}). When the action fails on a
 * line, the failure names that place: an {@link IOException} "{@code <file>, line 3 (byte offset
 * 5): java.lang.NumberFormatException: ...}" (in a range that starts inside the file the line is
 * counted from the range's first line, the offset from the file's start) with the action's
 * exception as its cause. Errors ({@code OutOfMemoryError} ...) pass through unchanged.
 */
public final class LineRanges {
  /**
   * One line, without its newline, and where it starts.
   *
   * @param file the file's path, as in the split
   * @param offset the byte offset of the line's first byte in the file
   */
  public record Line(String text, String file, long offset) {}

  /** What is done with each line. */
  public interface LineAction {
    void accept(Line line) throws Exception;
  }

  private LineRanges() {}

  /** As {@link #forEach}, handing the action each line's text only. */
  public static void forEachLine(Configuration conf, FileRangeSplits.FileRange range,
      Consumer<String> action) throws IOException {
    forEach(conf, range, line -> action.accept(line.text()));
  }

  /** Hands {@code action} every line of {@code range}, in order, with where it starts. */
  public static void forEach(Configuration conf, FileRangeSplits.FileRange range,
      LineAction action) throws IOException {
    Path path = new Path(range.path());
    FileSystem fs = path.getFileSystem(conf);
    try (FSDataInputStream raw = fs.open(path)) {
      long pos = range.start();
      long end = range.start() + range.length();
      if (pos > 0) {
        // The line that holds byte start-1 belongs to the previous range; begin after it.
        raw.seek(pos - 1);
      }
      InputStream in = new BufferedInputStream(raw, 64 * 1024);
      if (pos > 0) {
        pos--;
        int b;
        while ((b = in.read()) != -1) {
          pos++;
          if (b == '\n') {
            break;
          }
        }
        if (b == -1) {
          return;
        }
      }
      ByteArrayOutputStream line = new ByteArrayOutputStream(256);
      long lineNumber = 0;
      while (pos < end) {
        line.reset();
        long lineStart = pos;
        int b;
        boolean any = false;
        while ((b = in.read()) != -1) {
          pos++;
          any = true;
          if (b == '\n') {
            break;
          }
          line.write(b);
        }
        if (!any) {
          return;
        }
        lineNumber++;
        try {
          action.accept(new Line(line.toString(StandardCharsets.UTF_8), range.path(),
              lineStart));
        } catch (Exception e) {
          throw new IOException(range.path() + ", " + where(range, lineNumber, lineStart)
              + ": " + e, e);
        }
        if (b == -1) {
          return;
        }
      }
    }
  }

  private static String where(FileRangeSplits.FileRange range, long lineNumber, long offset) {
    return range.start() == 0 ? "line " + lineNumber + " (byte offset " + offset + ")"
        : "byte offset " + offset + " (line " + lineNumber + " of the split from byte "
        + range.start() + ")";
  }
}
