package dev.tide.it;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Writes random text to a FileSystem and returns the word counts it wrote. */
public final class TextGenerator {
  private TextGenerator() {}

  public static Map<String, Long> write(FileSystem fs, Path dir, int files, long bytesPerFile,
      long seed) throws IOException {
    Map<String, Long> counts = new TreeMap<>();
    SplittableRandom random = new SplittableRandom(seed);
    for (int f = 0; f < files; f++) {
      try (Writer out = new BufferedWriter(new OutputStreamWriter(
          fs.create(new Path(dir, String.format("part-%03d.txt", f))), StandardCharsets.UTF_8))) {
        long written = 0;
        while (written < bytesPerFile) {
          StringBuilder line = new StringBuilder();
          int words = 1 + random.nextInt(12);
          for (int w = 0; w < words; w++) {
            // Skewed vocabulary: a few very common words, a long tail of rare ones.
            int rank = (int) Math.floor(Math.pow(random.nextDouble(), 3) * 5000);
            String word = "w" + rank;
            counts.merge(word, 1L, Long::sum);
            line.append(w == 0 ? "" : (random.nextInt(8) == 0 ? "\t" : " ")).append(word);
          }
          line.append('\n');
          out.write(line.toString());
          written += line.length();
        }
      }
    }
    return counts;
  }
}
