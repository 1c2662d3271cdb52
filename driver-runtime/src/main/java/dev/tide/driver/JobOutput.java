package dev.tide.driver;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The job's output directory: created at the start (it must not exist, as in MapReduce), and
 * committed at the end with a {@code _SUCCESS} marker once every reduce attempt has committed its
 * own file ({@code part-r-NNNNN}, moved out of {@code _temporary}).
 */
final class JobOutput {
  static final String TEMPORARY = "_temporary";

  private JobOutput() {}

  static void prepare(Configuration conf, String output) throws IOException {
    if (output.isEmpty()) {
      return;
    }
    Path path = new Path(output);
    FileSystem fs = path.getFileSystem(conf);
    if (fs.exists(path)) {
      throw new IOException("output directory " + fs.makeQualified(path) + " already exists");
    }
    fs.mkdirs(new Path(path, TEMPORARY));
  }

  static void commit(Configuration conf, String output) throws IOException {
    if (output.isEmpty()) {
      return;
    }
    Path path = new Path(output);
    FileSystem fs = path.getFileSystem(conf);
    fs.delete(new Path(path, TEMPORARY), true);
    fs.create(new Path(path, "_SUCCESS"), true).close();
  }
}
