package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The executor and the packages it shares with the driver (the RPC messages, the application's
 * shared settings and secret, the job output commit) use nothing of the driver but the job API
 * ({@code dev.tide.driver.job}): an executor does not carry the driver's engine.
 */
class ExecutorImportsTest {
  private static final Path SOURCES = Path.of("src", "main", "java", "dev", "tide");
  private static final Pattern DRIVER_NAME =
      Pattern.compile("\\bdev\\.tide\\.driver\\.(?!job\\.)[a-z][\\w.]*");

  @Test
  void theExecutorAndWhatItSharesWithTheDriverUseOnlyTheJobApiOfTheDriver() throws IOException {
    TreeSet<String> found = new TreeSet<>();
    for (String pkg : List.of("executor", "rpc", "app", "output")) {
      Path dir = SOURCES.resolve(pkg);
      assertTrue(Files.isDirectory(dir), "missing " + dir.toAbsolutePath());
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          Matcher m = DRIVER_NAME.matcher(Files.readString(file));
          while (m.find()) {
            found.add(SOURCES.relativize(file) + ": " + m.group());
          }
        }
      }
    }
    assertEquals(new TreeSet<>(), found, "driver names outside dev.tide.driver.job");
  }
}
