package dev.tide.bench.shuffle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Generates a server's data set once: a marker file records that the directory is complete. */
public final class DataSets {
  /** Writes the data set into a directory. */
  public interface Generator {
    void generate(Path dir) throws Exception;
  }

  /** The application every server serves (a YARN id; Hadoop's job is job_1_0001). */
  public static final String APP_ID = "application_1_0001";
  /** The shared secret of the application (Tide handshake, Spark SASL, Hadoop job token). */
  public static final byte[] SECRET = "tide-bench-shuffle-secret-0123456789".getBytes(
      java.nio.charset.StandardCharsets.UTF_8);

  private DataSets() {}

  /** As {@link #ensure(Path, Workload, String, Generator)} for a layout written one way only. */
  public static void ensure(Path dir, Workload w, Generator generator) throws Exception {
    ensure(dir, w, "", generator);
  }

  /**
   * Generates the data set into {@code dir} unless it holds a complete one of this workload
   * written this way ({@code variant}, e.g. {@code segment checksums on}; recorded in the marker,
   * so a data set written another way, or by an older version of the bench, is regenerated).
   */
  public static void ensure(Path dir, Workload w, String variant, Generator generator)
      throws Exception {
    Path marker = dir.resolve("COMPLETE");
    String expected = variant.isEmpty() ? w.toString() : w + " " + variant;
    if (Files.exists(marker) && Files.readString(marker).equals(expected)) {
      System.err.println("[server] reusing data set in " + dir);
      return;
    }
    deleteTree(dir);
    Files.createDirectories(dir);
    long t0 = System.nanoTime();
    generator.generate(dir);
    Files.writeString(marker, expected);
    System.err.printf("[server] generated %d MiB in %s in %.1f s%n", w.totalBytes() >> 20, dir,
        (System.nanoTime() - t0) / 1e9);
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Blocks the calling (main) thread forever; the driver stops the JVM. */
  public static void awaitTermination() throws InterruptedException {
    Thread.currentThread().join();
  }
}
