package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.driver.job.InputSplit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineRangesTest {
  @TempDir
  Path dir;

  @Test
  void everyLineIsReadByExactlyOneSplitWhateverTheSplitSize() throws Exception {
    StringBuilder text = new StringBuilder();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String line = "line " + i + " " + "x".repeat(i % 17);
      expected.add(line);
      text.append(line).append('\n');
    }
    Files.writeString(dir.resolve("a.txt"), text.toString(), StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    for (long splitSize : new long[] {1, 7, 64, 1000, 1 << 20}) {
      List<String> seen = new ArrayList<>();
      for (InputSplit split : FileRangeSplits.plan(conf, dir.toUri().toString(), splitSize)) {
        LineRanges.forEachLine(conf, FileRangeSplits.decode(split.payload()), seen::add);
      }
      assertEquals(expected, seen, "split size " + splitSize);
    }
  }

  @Test
  void aSingleFileAsTheInputIsReadOnce() throws Exception {
    Path file = dir.resolve("one.txt");
    Files.writeString(file, "alpha\nbeta\ngamma\n", StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    List<String> seen = new ArrayList<>();
    for (InputSplit split : FileRangeSplits.plan(conf, file.toUri().toString(), 4)) {
      LineRanges.forEachLine(conf, FileRangeSplits.decode(split.payload()), seen::add);
    }
    assertEquals(List.of("alpha", "beta", "gamma"), seen);
  }

  @Test
  void aMissingInputIsNamedInTheError() {
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
        () -> FileRangeSplits.plan(new Configuration(), dir.resolve("nope").toString(), 0));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("nope"));
  }
}
