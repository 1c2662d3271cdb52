package dev.tide.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.InputSplit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How an input path becomes map tasks' byte ranges. */
class FileRangeSplitsTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();

  private static List<FileRangeSplits.FileRange> ranges(List<InputSplit> splits)
      throws IOException {
    List<FileRangeSplits.FileRange> ranges = new ArrayList<>();
    for (InputSplit split : splits) {
      ranges.add(FileRangeSplits.decode(split.payload()));
    }
    return ranges;
  }

  private static String name(FileRangeSplits.FileRange range) {
    return range.path().substring(range.path().lastIndexOf('/') + 1);
  }

  /** Each file's ranges are contiguous, at most the split size, and cover it exactly. */
  @ParameterizedTest(name = "split size {0}")
  @ValueSource(longs = {1, 4, 10, 11, 1 << 20})
  void theRangesOfEachFileCoverItExactlyInOrder(long splitSize) throws IOException {
    Path in = Files.createDirectory(dir.resolve("in"));
    Files.writeString(in.resolve("b"), "0123456789");
    Files.writeString(in.resolve("a"), "01234567890");
    Files.createFile(in.resolve("c-empty"));
    Files.writeString(in.resolve("_SUCCESS"), "skipped");

    List<FileRangeSplits.FileRange> ranges = ranges(FileRangeSplits.plan(conf, in.toString(),
        splitSize));

    Map<String, Long> covered = new LinkedHashMap<>();
    for (FileRangeSplits.FileRange r : ranges) {
      assertEquals(covered.getOrDefault(name(r), 0L), r.start(), "contiguous: " + r);
      assertFalse(r.length() <= 0 || r.length() > splitSize, r.toString());
      covered.put(name(r), r.start() + r.length());
    }
    assertEquals(List.of("a", "b"), List.copyOf(covered.keySet()),
        "by name; empty and '_' files give no range");
    assertEquals(Map.of("a", 11L, "b", 10L), covered, "each file covered whole");
  }

  @Test
  void withNoSplitSizeEachBlockIsARangePreferringItsHosts() throws IOException {
    Path file = Files.writeString(dir.resolve("small"), "one block");
    List<InputSplit> splits = FileRangeSplits.plan(conf, file.toString(), 0);

    assertEquals(1, splits.size());
    assertEquals(9, ranges(splits).get(0).length());
    assertEquals(List.of("localhost"), splits.get(0).preferredHosts());
  }

  @Test
  void aRangeSurvivesItsEncoding() throws IOException {
    FileRangeSplits.FileRange range = new FileRangeSplits.FileRange("hdfs://nn:8020/dir/f ü",
        1L << 40, 123);
    assertEquals(range, FileRangeSplits.decode(FileRangeSplits.encode(range)));
  }

  @Test
  void nothingToReadIsAnErrorNamingThePath() throws IOException {
    Path in = Files.createDirectory(dir.resolve("in"));
    Files.createFile(in.resolve("empty"));
    IOException e = assertThrows(IOException.class,
        () -> FileRangeSplits.plan(conf, in.toString(), 0));
    assertEquals("input path file:" + in + " holds no non-empty files (files whose names start"
        + " with '_' or '.' are not read)", e.getMessage());
  }
}
