package dev.tide.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Reads a wordcount job's output ({@code word<TAB>count} lines in {@code part-r-*} files). */
public final class WordCountOutput {
  private WordCountOutput() {}

  /**
   * @return word -> count over every part file of {@code dir}
   * @throws IllegalStateException if a word appears twice (in one file or in two)
   */
  public static Map<String, Long> read(FileSystem fs, String dir) throws IOException {
    Map<String, Long> counts = new TreeMap<>();
    for (FileStatus part : fs.globStatus(new Path(dir, "part-r-*"))) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(part.getPath()),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          String[] kv = line.split("\t");
          if (counts.put(kv[0], Long.parseLong(kv[1])) != null) {
            throw new IllegalStateException("word " + kv[0] + " appears twice in " + dir);
          }
        }
      }
    }
    return counts;
  }
}
