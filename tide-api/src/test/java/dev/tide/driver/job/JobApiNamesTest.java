package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A job written with {@code import dev.tide.driver.job.*;} must be able to name every type of
 * the job API: none may share its simple name with a type of {@code java.lang}, which every
 * source file imports on demand too (the API's {@code Record} did: "reference to Record is
 * ambiguous").
 */
class JobApiNamesTest {
  @Test
  void noJobApiTypeSharesItsNameWithAJavaLangType() throws IOException, URISyntaxException {
    Path dir = Path.of(TideJob.class.getResource("TideJob.class").toURI()).getParent();
    List<String> names;
    try (Stream<Path> files = Files.list(dir)) {
      names = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".class") && !n.contains("$"))
          .map(n -> n.substring(0, n.length() - ".class".length()))
          .sorted().toList();
    }
    assertFalse(names.isEmpty(), "the job API's classes in " + dir);
    List<String> clashes = names.stream().filter(JobApiNamesTest::isJavaLangType).toList();
    assertEquals(List.of(), clashes, "job API types named like java.lang types");
  }

  private static boolean isJavaLangType(String simpleName) {
    try {
      Class.forName("java.lang." + simpleName, false, ClassLoader.getPlatformClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
