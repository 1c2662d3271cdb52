package dev.tide.bench.shuffle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and resident memory of another process, from /proc (Linux only). */
public final class ProcStats {
  /** USER_HZ; 100 on every Linux we run on ({@code getconf CLK_TCK}). */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcStats() {}

  /** utime + stime of the process (all its threads), in seconds. */
  public static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // Fields after the command name (which is in parentheses and may contain spaces).
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // f[0] is field 3 (state); utime is field 14, stime field 15.
    long utime = Long.parseLong(f[11]);
    long stime = Long.parseLong(f[12]);
    return (utime + stime) / TICKS_PER_SECOND;
  }

  /** A field of /proc/pid/status in kB (VmRSS, VmHWM). */
  public static long statusKb(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
      }
    }
    throw new IOException("no " + field + " in /proc/" + pid + "/status");
  }

  /** Busy and total jiffies of one CPU from /proc/stat ({@code cpuN} line): {busy, total}. */
  public static long[] cpuJiffies(int cpu) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
      if (line.startsWith("cpu" + cpu + " ")) {
        String[] f = line.trim().split("\\s+");
        long total = 0;
        long idle = 0;
        for (int i = 1; i < f.length && i <= 8; i++) {
          long v = Long.parseLong(f[i]);
          total += v;
          if (i == 4 || i == 5) { // idle, iowait
            idle += v;
          }
        }
        return new long[] {total - idle, total};
      }
    }
    throw new IOException("no cpu" + cpu + " in /proc/stat");
  }
}
