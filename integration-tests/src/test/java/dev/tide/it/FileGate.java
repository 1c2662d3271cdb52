package dev.tide.it;

import java.io.IOException;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * How the test jobs' code waits, in its container, for another task or for the test: until a
 * file exists. Polled, with a deadline; the test side waits with {@code Await} instead.
 */
public final class FileGate {
  private static final long POLL_MILLIS = 100;

  private FileGate() {}

  /**
   * Returns once {@code path} exists; throws {@link IllegalStateException} naming {@code what}
   * when it does not within {@code within}.
   */
  public static void await(Configuration conf, Path path, String what, Duration within)
      throws IOException, InterruptedException {
    FileSystem fs = path.getFileSystem(conf);
    long deadline = System.nanoTime() + within.toNanos();
    while (!fs.exists(path)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " did not come within " + within.toSeconds()
            + " s (no " + path + ")");
      }
      Thread.sleep(POLL_MILLIS); // the poll's interval
    }
  }
}
