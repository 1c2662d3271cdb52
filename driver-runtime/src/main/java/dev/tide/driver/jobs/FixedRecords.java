package dev.tide.driver.jobs;

import dev.tide.input.FileRangeSplits;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reads the fixed-size records of a file range (as TeraSort's input format): the range owns the
 * records that start inside it, so every record is read by exactly one range; the last one may
 * end after the range. When the action fails on a record, the failure names the file, the
 * record's number in the file (from 1) and its byte offset, with the action's exception as its
 * cause.
 */
public final class FixedRecords {
  /** What is done with each record; the array is reused for the next record. */
  public interface RecordAction {
    void accept(byte[] record) throws IOException;
  }

  private FixedRecords() {}

  /** Reads at most {@code limit} records of the range (Long.MAX_VALUE for all). */
  public static long forEach(Configuration conf, FileRangeSplits.FileRange range,
      int recordBytes, long limit, RecordAction action) throws IOException {
    Path path = new Path(range.path());
    FileSystem fs = path.getFileSystem(conf);
    long first = (range.start() + recordBytes - 1) / recordBytes * recordBytes;
    long end = range.start() + range.length();
    long fileLength = fs.getFileStatus(path).getLen();
    if (fileLength % recordBytes != 0) {
      throw new IOException(path + " is " + fileLength + " bytes long, not a whole number of "
          + recordBytes + "-byte records (tide.sort.recordBytes)");
    }
    long count = 0;
    try (FSDataInputStream raw = fs.open(path)) {
      raw.seek(first);
      InputStream in = new BufferedInputStream(raw, 1 << 16);
      byte[] record = new byte[recordBytes];
      for (long pos = first; pos < end && pos < fileLength && count < limit;
          pos += recordBytes) {
        int read = in.readNBytes(record, 0, recordBytes);
        if (read < recordBytes) {
          throw new EOFException(path + " ended inside the record at byte " + pos);
        }
        try {
          action.accept(record);
        } catch (IOException | RuntimeException e) {
          throw new IOException(range.path() + ", record " + (pos / recordBytes + 1)
              + " (byte offset " + pos + "): " + e, e);
        }
        count++;
      }
    }
    return count;
  }
}
