package dev.tide.bench.mrcompare;

import dev.tide.it.TextGenerator;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One HDFS directory of generated text that grows from one size to the next: the files of the
 * 256 MiB input are the first files of the 1 GiB input, so each byte is generated once. Keeps
 * the exact word counts of what it holds ({@link TextGenerator} returns them per file).
 * Not thread-safe; used by the benchmark's main thread.
 */
final class GrowingInput {
  private final FileSystem fs;
  private final Path dir;
  private final long fileBytes;
  private final long seed;
  private final Map<String, Long> expected = new TreeMap<>();
  private int files;

  GrowingInput(FileSystem fs, Path dir, long fileBytes, long seed) {
    this.fs = fs;
    this.dir = dir;
    this.fileBytes = fileBytes;
    this.seed = seed;
  }

  /**
   * Adds files until the directory holds {@code targetFiles}; each is generated in a scratch
   * directory (TextGenerator names its files from part-000) and renamed into place.
   */
  void growTo(int targetFiles) throws IOException {
    while (files < targetFiles) {
      Path scratch = new Path(dir.getParent(), dir.getName() + "-scratch");
      Map<String, Long> counts = TextGenerator.write(fs, scratch, 1, fileBytes, seed + files);
      Path target = new Path(dir, String.format("part-%05d.txt", files));
      fs.mkdirs(dir);
      if (!fs.rename(new Path(scratch, "part-000.txt"), target)) {
        throw new IOException("could not move generated file to " + target);
      }
      fs.delete(scratch, true);
      counts.forEach((word, count) -> expected.merge(word, count, Long::sum));
      files++;
    }
  }

  /** Total bytes of the input files. */
  long bytes() throws IOException {
    return fs.getContentSummary(dir).getLength();
  }

  /** Word counts of everything the directory holds now (a copy). */
  Map<String, Long> expectedCounts() {
    return new TreeMap<>(expected);
  }

  Path dir() {
    return dir;
  }
}
