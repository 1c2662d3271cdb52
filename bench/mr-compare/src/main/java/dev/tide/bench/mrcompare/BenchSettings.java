package dev.tide.bench.mrcompare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark run compares, from {@code key=value} arguments (each argument may hold
 * several, separated by blanks). Sizes are in bytes of generated text; the input of a size is
 * {@code size / fileBytes} files of {@code fileBytes}, each one HDFS block, so both engines get
 * one map task per file.
 *
 * @param work local directory of the clusters
 * @param sizes input sizes to run, ascending (the input of a size extends the previous one)
 * @param fileBytes bytes of one input file (below the block size)
 * @param blockBytes HDFS block size of the input
 * @param reducers reduce tasks of both jobs
 * @param heapMb heap of Tide's executors and of MapReduce's map and reduce tasks
 * @param overheadMb container memory beyond that heap, both engines
 * @param amHeapMb heap of both application masters (container: amHeapMb + overheadMb)
 * @param javaOpts extra JVM options of every task, executor and AM JVM, both engines
 * @param idleTimeout Tide's {@code tide.dynamicAllocation.executorIdleTimeout}
 * @param warmUp whether one small unreported pair of jobs runs first (class loading in the
 *     NodeManagers' JVM, HDFS and YARN caches)
 */
record BenchSettings(Path work, List<Long> sizes, long fileBytes, long blockBytes, int reducers,
    int heapMb, int overheadMb, int amHeapMb, String javaOpts, String idleTimeout,
    boolean warmUp) {

  static final String USAGE = "MrCompareBench [work=DIR] [sizes=256m,1g] [fileBytes=32m]"
      + " [blockBytes=64m] [reducers=2] [heapMb=256] [overheadMb=128] [amHeapMb=192]"
      + " [javaOpts='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC'] [idleTimeout=2s] [warmUp=true]";

  static BenchSettings parse(String[] args) {
    Map<String, String> values = new HashMap<>();
    for (String arg : args) {
      for (String pair : arg.trim().split("\\s+(?=\\w+=)")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("not key=value: '" + pair + "'; " + USAGE);
        }
        values.put(pair.substring(0, eq), pair.substring(eq + 1).replace("'", ""));
      }
    }
    List<Long> sizes = new ArrayList<>();
    for (String size : take(values, "sizes", "256m,1g").split(",")) {
      sizes.add(bytes("sizes", size));
    }
    BenchSettings settings = new BenchSettings(
        Path.of(take(values, "work", "target/bench-work")),
        List.copyOf(sizes),
        bytes("fileBytes", take(values, "fileBytes", "32m")),
        bytes("blockBytes", take(values, "blockBytes", "64m")),
        Integer.parseInt(take(values, "reducers", "2")),
        Integer.parseInt(take(values, "heapMb", "256")),
        Integer.parseInt(take(values, "overheadMb", "128")),
        Integer.parseInt(take(values, "amHeapMb", "192")),
        take(values, "javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"),
        take(values, "idleTimeout", "2s"),
        Boolean.parseBoolean(take(values, "warmUp", "true")));
    if (!values.isEmpty()) {
      throw new IllegalArgumentException("unknown settings " + values.keySet() + "; " + USAGE);
    }
    settings.validate();
    return settings;
  }

  private void validate() {
    for (int i = 0; i < sizes.size(); i++) {
      if (sizes.get(i) % fileBytes != 0 || (i > 0 && sizes.get(i) <= sizes.get(i - 1))) {
        throw new IllegalArgumentException("sizes must ascend and be multiples of fileBytes ("
            + fileBytes + "): " + sizes);
      }
    }
    // TextGenerator writes a line past bytesPerFile; one block must hold the whole file.
    if (fileBytes + (1 << 20) > blockBytes) {
      throw new IllegalArgumentException("blockBytes (" + blockBytes
          + ") must exceed fileBytes (" + fileBytes + ") by 1 MiB: one block per file");
    }
  }

  /** Input files of {@code size} bytes. */
  int files(long size) {
    return (int) (size / fileBytes);
  }

  private static String take(Map<String, String> values, String key, String fallback) {
    String value = values.remove(key);
    return value == null ? fallback : value;
  }

  static long bytes(String key, String text) {
    String t = text.trim().toLowerCase();
    long unit = 1;
    switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
      case 'k' -> unit = 1L << 10;
      case 'm' -> unit = 1L << 20;
      case 'g' -> unit = 1L << 30;
      default -> { }
    }
    try {
      return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + ": not a size: '" + text + "'", e);
    }
  }

  /** 268435456 -> "256 MiB", 1073741824 -> "1 GiB". */
  static String label(long size) {
    return size >= 1L << 30 && size % (1L << 30) == 0 ? (size >> 30) + " GiB"
        : (size >> 20) + " MiB";
  }
}
