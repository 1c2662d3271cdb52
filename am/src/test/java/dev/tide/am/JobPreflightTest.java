package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertNotNull;

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
}
