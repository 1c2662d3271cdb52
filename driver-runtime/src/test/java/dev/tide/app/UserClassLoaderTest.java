package dev.tide.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which copy of a resource user code sees when the user's jar and Tide's classpath both hold
 * one: Tide's by default, the user's with the user's classpath first, except in Tide's own and
 * Hadoop's packages.
 */
class UserClassLoaderTest {
  private static final String SHARED = "settings/defaults.properties";
  private static final String TIDE_OWN = "dev/tide/driver/version.properties";
  private static final String HADOOP_OWN = "org/apache/hadoop/extra.properties";

  @TempDir
  Path dir;

  private URLClassLoader tideClasspath;
  private final Configuration conf = new Configuration(false);

  @BeforeEach
  void makeClasspaths() throws IOException {
    Path tide = dir.resolve("tide-classes");
    for (String name : new String[] {SHARED, TIDE_OWN, HADOOP_OWN}) {
      Path file = tide.resolve(name);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "tide");
    }
    tideClasspath = new URLClassLoader(new URL[] {tide.toUri().toURL()}, null);
    writeJar(dir.resolve("work").resolve("user.jar"), SHARED, TIDE_OWN, HADOOP_OWN,
        "only/in/user.txt");
  }

  private static void writeJar(Path jar, String... entries) throws IOException {
    Files.createDirectories(jar.getParent());
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      for (String entry : entries) {
        out.putNextEntry(new JarEntry(entry));
        out.write("user".getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
  }

  private static String read(ClassLoader loader, String name) throws IOException {
    try (InputStream in = loader.getResourceAsStream(name)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private ClassLoader forContainer() throws IOException {
    return UserClassLoader.forContainer(conf, dir.resolve("work").toFile(), tideClasspath);
  }

  @Test
  void withoutUserJarsTheParentIsUsedAsItIs() throws IOException {
    assertSame(tideClasspath, forContainer());
  }

  @Test
  void byDefaultTideClassesWinAndTheUsersJarAddsWhatIsMissing() throws IOException {
    conf.set(UserClassLoader.USER_JARS_KEY, " user.jar ");
    ClassLoader loader = forContainer();

    assertEquals("tide", read(loader, SHARED));
    assertEquals("user", read(loader, "only/in/user.txt"));
  }

  @Test
  void withTheUsersClasspathFirstTheUsersCopyWinsOutsideTideAndHadoop() throws IOException {
    conf.set(UserClassLoader.USER_JARS_KEY, "user.jar");
    conf.setBoolean("tide.user.classpath.first", true);
    ClassLoader loader = forContainer();

    assertEquals("user", read(loader, SHARED));
    assertEquals("tide", read(loader, TIDE_OWN), "Tide's packages always come from Tide");
    assertEquals("tide", read(loader, HADOOP_OWN), "Hadoop's too");
    assertEquals("user", read(loader, "only/in/user.txt"));
  }

  @Test
  void aListedJarThatWasNotLocalizedIsNamedWithTheDirectory() {
    conf.set(UserClassLoader.USER_JARS_KEY, "user.jar,lib/missing.jar");
    File work = dir.resolve("work").toFile();

    IOException e = assertThrows(IOException.class, this::forContainer);

    assertEquals("user jar lib/missing.jar is not in the container's working directory "
        + work.getAbsolutePath() + " (was it localized?)", e.getMessage());
  }
}
