package dev.tide.driver.jobs;

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
 */
public final class LineRanges {
  private LineRanges() {}

  public static void forEachLine(Configuration conf, FileRangeSplits.FileRange range,
      Consumer<String> action) throws IOException {
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
      while (pos < end) {
        line.reset();
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
        action.accept(line.toString(StandardCharsets.UTF_8));
        if (b == -1) {
          return;
        }
      }
    }
  }
}
