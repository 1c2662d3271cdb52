package dev.tide.driver.job;

import dev.tide.output.JobOutput;
import dev.tide.driver.jobs.FileRangeSplits;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The path checks a job's {@link TideJob#checkPaths} makes before submission, the ones the
 * built-in jobs use: each looks at the FileSystem's metadata only (no data is read) and throws an
 * {@link IOException} naming the path and what is wrong.
 */
public final class JobPaths {
  private JobPaths() {}

  /**
   * An input of {@code FileRangeSplits.plan}: the path exists and is a non-empty file or a
   * directory with a non-empty file whose name does not start with '_' or '.'.
   */
  public static void requireInput(Configuration conf, String input) throws IOException {
    FileRangeSplits.checkInput(conf, input);
  }

  /**
   * The output of a batch job ({@link JobPlan.Builder#output}): it must not exist yet, as in
   * MapReduce (the job commits it whole, or leaves nothing).
   */
  public static void requireNewOutput(Configuration conf, String output) throws IOException {
    JobOutput.checkNew(conf, output);
  }

  /**
   * The output directory of a stream ({@link StreamingJob#outputPath}): it may exist (a
   * resubmitted stream goes on writing batches into it) but must not be a file.
   */
  public static void requireStreamOutput(Configuration conf, String output) throws IOException {
    Path path = new Path(output);
    FileSystem fs = path.getFileSystem(conf);
    if (fs.exists(path) && fs.getFileStatus(path).isFile()) {
      throw new IOException("output " + fs.makeQualified(path) + " is a file, not a directory");
    }
  }
}
