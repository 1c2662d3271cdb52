package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.TideJob;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's checks before submission, as they run under {@code yarn jar}. */
class JobPreflightTest {
  /**
   * Under {@code yarn jar} Hadoop's RunJar loads tide-app.jar with a URLClassLoader. Checking a
   * built-in job (no user jars) must leave that loader open: closed, the client failed with
   * {@code NoClassDefFoundError: dev/tide/am/StagingArea} right after the checks.
   */
  @Test
  void leavesTidesOwnClassLoaderOpen(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("marker.txt"), "still open");
    try (URLClassLoader runJarLike = new URLClassLoader(new URL[] {dir.toUri().toURL()},
        JobPreflightTest.class.getClassLoader())) {
      Configuration conf = new Configuration(false);
      ClientCommand command = ClientCommand.parse(
          new String[] {"sleep", "-m", "2", "-r", "1"}, conf);
      JobPreflight.check(command, conf, runJarLike);
      assertNotNull(runJarLike.getResource("marker.txt"),
          "the loader of Tide's classes was closed by the checks");
    }
  }

  private static void refused(String expected, String... args) throws Exception {
    Configuration conf = new Configuration(false);
    ClientCommand command = ClientCommand.parse(args, conf);
    ClientCommand.UsageException e = assertThrows(ClientCommand.UsageException.class,
        () -> JobPreflight.check(command, conf));
    assertEquals(expected, e.getMessage());
  }

  private static void accepted(String... args) throws Exception {
    Configuration conf = new Configuration(false);
    ClientCommand command = ClientCommand.parse(args, conf);
    assertDoesNotThrow(() -> JobPreflight.check(command, conf));
  }

  private static String uri(Path path) {
    return "file:" + path.toAbsolutePath();
  }

  @Test
  void refusesAMissingInputPath(@TempDir Path dir) throws Exception {
    refused("job wordcount: input path " + uri(dir.resolve("in")) + " does not exist",
        "wordcount", dir.resolve("in").toString(), dir.resolve("out").toString());
  }

  @Test
  void refusesAnInputDirectoryWithNothingToRead(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.writeString(dir.resolve("in/_SUCCESS"), "");
    Files.writeString(dir.resolve("in/empty.txt"), "");
    refused("job sort: input path " + uri(dir.resolve("in")) + " holds no non-empty files"
        + " (files whose names start with '_' or '.' are not read)",
        "sort", dir.resolve("in").toString(), dir.resolve("out").toString());
  }

  @Test
  void refusesAnExistingOutput(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.writeString(dir.resolve("in/words.txt"), "a b a\n");
    Files.createDirectories(dir.resolve("out"));
    refused("job kmeans: output directory " + uri(dir.resolve("out")) + " already exists",
        "kmeans", dir.resolve("in").toString(), "2", "3", dir.resolve("out").toString());
  }

  @Test
  void checksEveryInputOfSortValidate(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.writeString(dir.resolve("in/records"), "x".repeat(100));
    refused("job sortvalidate: input path " + uri(dir.resolve("sorted")) + " does not exist",
        "sortvalidate", dir.resolve("in").toString(), dir.resolve("sorted").toString(),
        dir.resolve("report").toString());
  }

  @Test
  void acceptsReadableInputAndNewOutput(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.writeString(dir.resolve("in/words.txt"), "a b a\n");
    accepted("wordcount", dir.resolve("in").toString(), dir.resolve("out").toString());
    accepted("wordcount", dir.resolve("in/words.txt").toString(),
        dir.resolve("out").toString());
  }

  /** A resubmitted stream continues into its output, and waits for files in an empty input. */
  @Test
  void aStreamMayFindItsOutputAndAnEmptyInputDirectory(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.createDirectories(dir.resolve("out/batch-1000"));
    accepted("stream-wordcount", dir.resolve("in").toString(), dir.resolve("out").toString());
  }

  /** A user job's paths are its own to check: the client calls its {@code checkPaths}. */
  public static final class PathCheckingJob implements TideJob {
    @Override
    public void checkPaths(JobContext context) throws IOException {
      throw new IOException("table " + context.args().get(0) + " has no partitions");
    }
  }

  @Test
  void refusesAUserJobWhoseCheckPathsThrows() throws Exception {
    refused("job " + PathCheckingJob.class.getName() + ": table sales has no partitions",
        PathCheckingJob.class.getName(), "sales");
  }

  @Test
  void refusesAStreamWhoseOutputIsAFile(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("in"));
    Files.writeString(dir.resolve("out"), "not a directory");
    refused("job stream-wordcount: output " + uri(dir.resolve("out")) + " is a file, not a"
        + " directory", "stream-wordcount", dir.resolve("in").toString(),
        dir.resolve("out").toString());
  }
}
