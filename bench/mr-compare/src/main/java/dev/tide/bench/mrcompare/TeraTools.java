package dev.tide.bench.mrcompare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraChecksum;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraValidate;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * MapReduce's TeraGen, TeraChecksum and TeraValidate (hadoop-mapreduce-examples), run as
 * {@code hadoop jar hadoop-mapreduce-examples.jar teragen|terasum|teravalidate ...} would, as
 * MapReduce jobs on the shared cluster. They prepare and check the sorts; none of them is
 * measured. Used by the benchmark's main thread.
 */
final class TeraTools {
  /** TeraGen's record: 10-byte key, 90-byte value. */
  static final int RECORD_BYTES = 100;

  private final SideBySideCluster cluster;

  TeraTools(SideBySideCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * What TeraValidate reported about a sorted directory.
   *
   * @param checksum the sum of a CRC32 per record (Unsigned16 in hex), "" if none was written
   * @param errors its "error" lines: misordered keys within a file or across files
   */
  record Validation(String checksum, List<String> errors) {}

  /**
   * {@code teragen rows dir} with {@code maps} map tasks, so {@code dir} holds {@code maps}
   * files of about {@code rows / maps} records, each written with {@code blockBytes} blocks.
   */
  void generate(long rows, int maps, Path dir, long blockBytes) throws Exception {
    Configuration conf = cluster.mapReduceConf();
    conf.setInt("mapreduce.job.maps", maps);
    conf.setLong("dfs.blocksize", blockBytes);
    run(new TeraGen(), conf, Long.toString(rows), dir.toString());
  }

  /** {@code terasum dir report}: the input's checksum, as TeraValidate computes it. */
  String checksum(Path dir, Path report) throws Exception {
    run(new TeraChecksum(), cluster.mapReduceConf(), dir.toString(), report.toString());
    List<String> lines = readLines(report);
    if (lines.size() != 1) {
      throw new IllegalStateException("TeraChecksum of " + dir + " wrote " + lines.size()
          + " lines to " + report + ", not 1: " + lines);
    }
    return lines.get(0).trim();
  }

  /** {@code teravalidate sorted report}. */
  Validation validate(Path sorted, Path report) throws Exception {
    run(new TeraValidate(), cluster.mapReduceConf(), sorted.toString(), report.toString());
    String checksum = "";
    List<String> errors = new ArrayList<>();
    for (String line : readLines(report)) {
      if (line.startsWith("checksum\t")) {
        checksum = line.substring("checksum\t".length()).trim();
      } else if (!line.isBlank()) {
        errors.add(line); // "error\t..." and the continuation lines of a multi-line error
      }
    }
    return new Validation(checksum, errors);
  }

  private static void run(Tool tool, Configuration conf, String... args) throws Exception {
    int code = ToolRunner.run(conf, tool, args);
    if (code != 0) {
      throw new IllegalStateException(tool.getClass().getSimpleName() + " "
          + String.join(" ", args) + " exited " + code);
    }
  }

  /** The lines of the part files under {@code dir}, in name order. */
  private List<String> readLines(Path dir) throws IOException {
    FileSystem fs = cluster.fileSystem();
    List<String> lines = new ArrayList<>();
    for (FileStatus file : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(file.getPath()),
          StandardCharsets.UTF_8))) {
        in.lines().forEach(lines::add);
      }
    }
    return lines;
  }
}
