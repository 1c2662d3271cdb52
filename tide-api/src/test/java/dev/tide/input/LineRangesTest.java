package dev.tide.input;

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

  /**
   * Issue 37 item 9: a mapper whose parsing of a line fails used to fail its task with the bare
   * exception ("java.lang.NumberFormatException: For input string: \"x\""), naming neither
   * the file nor where in it.
   */
  @Test
  void aLineThatFailsToParseIsNamedByFileLineAndByteOffset() throws Exception {
    Path file = dir.resolve("numbers.txt");
    Files.writeString(file, "1\n22\nx\n4\n", StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    List<Integer> parsed = new ArrayList<>();
    FileRangeSplits.FileRange whole = FileRangeSplits.decode(
        FileRangeSplits.plan(conf, file.toUri().toString(), 0).get(0).payload());

    java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.io.IOException.class, () -> LineRanges.forEachLine(conf, whole,
            line -> parsed.add(Integer.parseInt(line))));

    assertEquals(List.of(1, 22), parsed);
    assertEquals(whole.path() + ", line 3 (byte offset 5): java.lang.NumberFormatException:"
        + " For input string: \"x\"", e.getMessage());
    org.junit.jupiter.api.Assertions.assertTrue(e.getCause() instanceof NumberFormatException);
  }

  @Test
  void inASplitThatStartsInsideTheFileTheOffsetIsTheFilesAndTheLineTheSplits()
      throws Exception {
    Path file = dir.resolve("numbers.txt");
    Files.writeString(file, "1\n22\n333\nx\n", StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    FileRangeSplits.FileRange second = new FileRangeSplits.FileRange(file.toUri().toString(), 3,
        20);

    java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.io.IOException.class, () -> LineRanges.forEachLine(conf, second,
            Integer::parseInt));

    assertEquals(second.path() + ", byte offset 9 (line 2 of the split from byte 3):"
        + " java.lang.NumberFormatException: For input string: \"x\"", e.getMessage());
  }

  @Test
  void aMapperSeesWhereEachLineStarts() throws Exception {
    Path file = dir.resolve("lines.txt");
    Files.writeString(file, "alpha\n\nbeta\ngamma", StandardCharsets.UTF_8);
    Configuration conf = new Configuration();
    String path = file.toUri().toString();
    List<LineRanges.Line> seen = new ArrayList<>();
    for (InputSplit split : FileRangeSplits.plan(conf, path, 4)) {
      LineRanges.forEach(conf, FileRangeSplits.decode(split.payload()), seen::add);
    }
    String name = FileRangeSplits.decode(FileRangeSplits.plan(conf, path, 0).get(0).payload())
        .path();
    assertEquals(List.of(new LineRanges.Line("alpha", name, 0), new LineRanges.Line("", name, 6),
        new LineRanges.Line("beta", name, 7), new LineRanges.Line("gamma", name, 12)), seen);
  }

  @Test
  void aMissingInputIsNamedInTheError() {
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
        () -> FileRangeSplits.plan(new Configuration(), dir.resolve("nope").toString(), 0));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("nope"));
  }
}
