package dev.tide.bench.mrcompare;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average ({@code /proc/loadavg}), and a bounded wait for it to fall before
 * a measured run: other work on a 2-core machine changes every figure this benchmark reports.
 */
final class LoadAverage {
  private static final long POLL_MILLIS = 5_000;

  private LoadAverage() {}

  /** "1-min 5-min 15-min running/total last-pid", or why it could not be read. */
  static String now() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** The 1-minute figure, NaN if unknown. */
  static double oneMinute() {
    try {
      return Double.parseDouble(now().split("\\s+")[0]);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /**
   * Waits until the 1-minute load average is below {@code below} or {@code maxSeconds} passed
   * (then goes on anyway, saying so); {@code below <= 0} returns at once.
   */
  static void awaitBelow(double below, int maxSeconds, String what, PrintStream log)
      throws InterruptedException {
    if (below <= 0) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + maxSeconds * 1_000_000_000L;
    double load = oneMinute();
    while (!(load < below) && System.nanoTime() < deadline) {
      Thread.sleep(POLL_MILLIS);
      load = oneMinute();
    }
    long waited = (System.nanoTime() - start) / 1_000_000_000L;
    log.printf("[bench] waited %d s for load < %.1f before %s: %s%s%n", waited, below, what,
        now(), load < below ? "" : " (gave up waiting)");
  }
}
