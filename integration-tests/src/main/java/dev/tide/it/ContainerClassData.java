package dev.tide.it;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container classpath of the in-process clusters, and a class-data-sharing archive of it so
 * that the many short-lived ApplicationMaster and executor JVMs of the integration tests map the
 * classes they load instead of parsing and verifying them again (about 4,500 classes for an
 * executor, 7,000 for an ApplicationMaster; measured on a 5,000-word wordcount: an executor's CPU
 * 4.4 s to 2.8 s, the job 14 s to 10-11 s).
 *
 * <p>The archive is made once per build directory from {@code cds/containers.classlist} (the
 * classes that an ApplicationMaster and executors loaded in a run of the tests; see
 * README.md, "Run the tests") with {@code java -Xshare:dump} over the jars of this JVM's
 * classpath, and used by containers only when the system property {@value #ENABLE} is true (the
 * integration tests set it; benchmarks that compare Tide with other engines on the same cluster
 * do not). A class missing from the list, or a list out of date, only costs speed: the JVM loads
 * what the archive lacks as usual, and a container whose classpath does not match ignores the
 * archive.
 */
public final class ContainerClassData {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerClassData.class);
  /** System property that turns the archive on for the containers of in-process clusters. */
  public static final String ENABLE = "tide.it.classDataSharing";
  private static final String CLASS_LIST = "cds/containers.classlist";
  private static final long DUMP_TIMEOUT_SECONDS = 300;

  private ContainerClassData() {}

  /**
   * This JVM's classpath for the containers, jars first: the conf directory and the class
   * directories after them (a non-empty directory ahead of a jar keeps the JVM from mapping that
   * jar's classes from an archive). No jar on it holds a {@code *-site.xml}, so the conf
   * directory's files are still the ones found.
   */
  static String classpath(Path confDir) {
    List<String> entries = classpathEntries(true);
    entries.add(confDir.toString());
    entries.addAll(classpathEntries(false));
    return String.join(File.pathSeparator, entries);
  }

  /**
   * The java option that maps the archive ({@code -XX:SharedArchiveFile=...}), made first if
   * needed, when {@value #ENABLE} is set; empty when it is not set or the archive could not be
   * made (logged).
   */
  static String javaOption() {
    if (!Boolean.getBoolean(ENABLE)) {
      return "";
    }
    Path dir = Path.of("target", "cds").toAbsolutePath();
    Path archive = dir.resolve("containers-" + jarsKey() + ".jsa");
    try {
      Files.createDirectories(dir);
      // One JVM dumps, test JVMs side by side wait for it and then use the same file.
      try (FileChannel lockFile = FileChannel.open(dir.resolve("dump.lock"),
              StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock lock = lockFile.lock()) {
        if (!Files.exists(archive)) {
          dump(dir, archive);
        }
      }
      return "-XX:SharedArchiveFile=" + archive;
    } catch (IOException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("Containers start without a class-data-sharing archive: {}", e.toString());
      return "";
    }
  }

  private static void dump(Path dir, Path archive) throws IOException, InterruptedException {
    Path classList = dir.resolve("containers.classlist");
    try (InputStream in = ContainerClassData.class.getClassLoader().getResourceAsStream(
        CLASS_LIST)) {
      if (in == null) {
        throw new IOException(CLASS_LIST + " is not on the classpath");
      }
      Files.copy(in, classList, StandardCopyOption.REPLACE_EXISTING);
    }
    Path partial = dir.resolve(archive.getFileName() + ".partial");
    Path log = dir.resolve("dump.log");
    long start = System.nanoTime();
    Process dump = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:dump", "-XX:SharedClassListFile=" + classList,
        "-XX:SharedArchiveFile=" + partial, "-cp", jarClasspath())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!dump.waitFor(DUMP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      dump.destroyForcibly();
      throw new IOException("java -Xshare:dump did not end within " + DUMP_TIMEOUT_SECONDS
          + " s (its output: " + log + ")");
    }
    if (dump.exitValue() != 0 || !Files.exists(partial)) {
      throw new IOException("java -Xshare:dump exited " + dump.exitValue() + " (its output: "
          + log + ")");
    }
    Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
    LOG.info("Made the containers' class-data-sharing archive {} in {} ms", archive,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * A key of the jars, their order, sizes and times: a rebuilt jar makes a new archive (a JVM
   * ignores an archive whose jars changed since it was made).
   */
  private static String jarsKey() {
    StringBuilder key = new StringBuilder();
    for (String jar : classpathEntries(true)) {
      File file = new File(jar);
      key.append(jar).append(':').append(file.length()).append(':').append(file.lastModified())
          .append(';');
    }
    return Integer.toHexString(key.toString().hashCode());
  }

  private static String jarClasspath() {
    return String.join(File.pathSeparator, classpathEntries(true));
  }

  /** This JVM's classpath entries that are jars ({@code jars}) or the others, in order. */
  private static List<String> classpathEntries(boolean jars) {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.endsWith(".jar") == jars) {
        entries.add(entry);
      }
    }
    return entries;
  }
}
