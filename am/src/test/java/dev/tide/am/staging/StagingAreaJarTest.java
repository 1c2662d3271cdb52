package dev.tide.am.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which jar the client stages as the app jar. */
class StagingAreaJarTest {
  /** A class with no dependencies, copied into a jar and an unpacked directory below. */
  public static final class Probe {}

  private static final String PROBE = Probe.class.getName().replace('.', '/') + ".class";

  /**
   * Hadoop's RunJar (what {@code yarn jar} runs) puts the unpacked jar first on the class path
   * and the jar second: classes load from the directory, and the app jar is still the jar.
   */
  @Test
  void findsTheJarUnderRunJar(@TempDir Path dir) throws Exception {
    Path unpacked = dir.resolve("hadoop-unjar123");
    Files.createDirectories(unpacked.resolve(PROBE).getParent());
    try (InputStream in = probeBytes()) {
      Files.copy(in, unpacked.resolve(PROBE));
    }
    File jar = dir.resolve("tide-app.jar").toFile();
    try (OutputStream file = Files.newOutputStream(jar.toPath());
        JarOutputStream out = new JarOutputStream(file);
        InputStream in = probeBytes()) {
      out.putNextEntry(new JarEntry(PROBE));
      in.transferTo(out);
    }
    try (URLClassLoader runJar = new URLClassLoader(
        new URL[] {unpacked.toUri().toURL(), jar.toURI().toURL()},
        ClassLoader.getPlatformClassLoader())) {
      Class<?> probe = runJar.loadClass(Probe.class.getName());
      assertTrue(probe.getProtectionDomain().getCodeSource().getLocation().toString()
          .contains("hadoop-unjar123"), "loaded from the unpacked directory");
      assertEquals(jar.getCanonicalFile(), StagingArea.jarOf(probe).getCanonicalFile());
    }
  }

  @Test
  void aClassDirectoryIsNotAJar() {
    // Tests load the am module's classes from target/test-classes.
    IOException e = assertThrows(IOException.class, () -> StagingArea.jarOf(Probe.class));
    assertTrue(e.getMessage().contains("tide.yarn.container.classpath"), e.getMessage());
  }

  private static InputStream probeBytes() {
    return StagingAreaJarTest.class.getClassLoader().getResourceAsStream(PROBE);
  }
}
