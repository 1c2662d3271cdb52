package dev.tide.it;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Writes random text to a FileSystem and returns the word counts it wrote. */
public final class TextGenerator {
  /** Words are "w0" .. "w4999". */
  private static final int VOCABULARY = 5000;

  private TextGenerator() {}

  /**
   * Writes {@code files} files of at least {@code bytesPerFile} bytes each of lines of 1 to 12
   * words (a skewed vocabulary: a few very common words, a long tail of rare ones), separated
   * by a space or now and then a tab. The same seed writes the same bytes.
   */
  public static Map<String, Long> write(FileSystem fs, Path dir, int files, long bytesPerFile,
      long seed) throws IOException {
    byte[][] words = new byte[VOCABULARY][];
    for (int rank = 0; rank < VOCABULARY; rank++) {
      words[rank] = ("w" + rank).getBytes(StandardCharsets.US_ASCII);
    }
    long[] counts = new long[VOCABULARY];
    SplittableRandom random = new SplittableRandom(seed);
    byte[] line = new byte[12 * (1 + words[VOCABULARY - 1].length) + 1];
    for (int f = 0; f < files; f++) {
      try (OutputStream out = new BufferedOutputStream(
          fs.create(new Path(dir, String.format("part-%03d.txt", f))), 1 << 16)) {
        long written = 0;
        while (written < bytesPerFile) {
          int length = 0;
          int wordsInLine = 1 + random.nextInt(12);
          for (int w = 0; w < wordsInLine; w++) {
            int rank = (int) Math.floor(Math.pow(random.nextDouble(), 3) * VOCABULARY);
            counts[rank]++;
            if (w > 0) {
              line[length++] = (byte) (random.nextInt(8) == 0 ? '\t' : ' ');
            }
            System.arraycopy(words[rank], 0, line, length, words[rank].length);
            length += words[rank].length;
          }
          line[length++] = '\n';
          out.write(line, 0, length);
          written += length;
        }
      }
    }
    Map<String, Long> byWord = new TreeMap<>();
    for (int rank = 0; rank < VOCABULARY; rank++) {
      if (counts[rank] > 0) {
        byWord.put(new String(words[rank], StandardCharsets.US_ASCII), counts[rank]);
      }
    }
    return byWord;
  }
}
