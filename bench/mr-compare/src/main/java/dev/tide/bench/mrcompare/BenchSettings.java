package dev.tide.bench.mrcompare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark run compares, from {@code key=value} arguments (each argument may hold
 * several, separated by blanks). Sizes are in bytes of input (generated text for wordcount,
 * TeraGen's records for terasort); the input of a size is {@code size / fileBytes} files of
 * {@code fileBytes}, each one HDFS block, so both engines get one map task per file.
 *
 * @param work local directory of the clusters
 * @param workload what to compare: {@code wordcount}, {@code terasort} or {@code both}; or
 *     {@code checksums}: Tide's sort with shuffle checksums on and off ({@link ChecksumComparison})
 * @param sizes input sizes to run, ascending (the wordcount input of a size extends the
 *     previous one; TeraGen writes each terasort input afresh)
 * @param fileBytes bytes of one input file (below the block size)
 * @param blockBytes HDFS block size of the input
 * @param reducers reduce tasks of both wordcount jobs
 * @param sortReducers reduce tasks of both sorts ({@code tide.sort.reducers},
 *     {@code mapreduce.job.reduces}) at every size
 * @param heapMb heap of Tide's executors and of MapReduce's map and reduce tasks
 * @param overheadMb container memory beyond that heap, both engines
 * @param amHeapMb heap of both application masters (container: amHeapMb + overheadMb)
 * @param javaOpts extra JVM options of every task, executor and AM JVM, both engines
 * @param idleTimeout Tide's {@code tide.dynamicAllocation.executorIdleTimeout}
 * @param warmUp whether one small unreported pair of jobs runs first (class loading in the
 *     NodeManagers' JVM, HDFS and YARN caches)
 * @param quietLoad before each measured run, wait until the 1-minute load average is below
 *     this (0: do not wait)
 * @param quietWaitSeconds the longest such wait per run; the run starts anyway after it
 * @param tideSortValidate whether Tide's own {@code sortvalidate} also checks Tide's sort output
 *     (besides MapReduce's TeraValidate, which always checks both)
 * @param checksumRounds for {@code workload=checksums}: rounds of (on, off) per size, the second
 *     in the other order
 */
record BenchSettings(Path work, String workload, List<Long> sizes, long fileBytes,
    long blockBytes, int reducers, int sortReducers, int heapMb, int overheadMb, int amHeapMb,
    String javaOpts, String idleTimeout, boolean warmUp, double quietLoad, int quietWaitSeconds,
    boolean tideSortValidate, int checksumRounds) {

  static final List<String> WORKLOADS = List.of("wordcount", "terasort", "both", "checksums");
  static final String USAGE = "MrCompareBench [work=DIR]"
      + " [workload=wordcount|terasort|both|checksums]"
      + " [sizes=256m,1g] [fileBytes=32m] [blockBytes=64m] [reducers=2] [sortReducers=4]"
      + " [heapMb=256] [overheadMb=128] [amHeapMb=192]"
      + " [javaOpts='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC'] [idleTimeout=2s] [warmUp=true]"
      + " [quietLoad=0] [quietWaitSeconds=300] [tideSortValidate=true] [checksumRounds=1]";

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
        take(values, "workload", "wordcount"),
        List.copyOf(sizes),
        bytes("fileBytes", take(values, "fileBytes", "32m")),
        bytes("blockBytes", take(values, "blockBytes", "64m")),
        Integer.parseInt(take(values, "reducers", "2")),
        Integer.parseInt(take(values, "sortReducers", "4")),
        Integer.parseInt(take(values, "heapMb", "256")),
        Integer.parseInt(take(values, "overheadMb", "128")),
        Integer.parseInt(take(values, "amHeapMb", "192")),
        take(values, "javaOpts", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"),
        take(values, "idleTimeout", "2s"),
        Boolean.parseBoolean(take(values, "warmUp", "true")),
        Double.parseDouble(take(values, "quietLoad", "0")),
        Integer.parseInt(take(values, "quietWaitSeconds", "300")),
        Boolean.parseBoolean(take(values, "tideSortValidate", "true")),
        Integer.parseInt(take(values, "checksumRounds", "1")));
    if (!values.isEmpty()) {
      throw new IllegalArgumentException("unknown settings " + values.keySet() + "; " + USAGE);
    }
    settings.validate();
    return settings;
  }

  private void validate() {
    if (!WORKLOADS.contains(workload)) {
      throw new IllegalArgumentException("workload must be one of " + WORKLOADS + ": '"
          + workload + "'");
    }
    if (sortReducers < 1) {
      throw new IllegalArgumentException("sortReducers must be at least 1: " + sortReducers);
    }
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

  boolean runs(String name) {
    return workload.equals(name) || workload.equals("both");
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
