package dev.tide.driver.streaming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import dev.tide.input.FileRangeSplits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files renamed into a directory, each taken by exactly one batch, also across a restart. */
class DirSourceTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();
  private Path in;

  @BeforeEach
  void makeInput() throws IOException {
    in = Files.createDirectory(dir.resolve("in"));
  }

  private DirSource source() throws IOException {
    DirSource source = new DirSource(conf, in.toString());
    source.restore(List.of());
    return source;
  }

  /** The file names of a batch's splits, one per split. */
  private static List<String> names(StreamSource.Batch batch) throws IOException {
    List<String> names = new ArrayList<>();
    for (InputSplit split : batch.splits()) {
      String path = FileRangeSplits.decode(split.payload()).path();
      names.add(path.substring(path.lastIndexOf('/') + 1));
    }
    return names;
  }

  @Test
  void eachBatchTakesTheFilesThatAppearedSinceTheLastAndCountsTheirBytes() throws IOException {
    DirSource source = source();
    assertEquals(List.of(), names(source.take(1_000)));

    Files.writeString(in.resolve("b.txt"), "12345");
    Files.writeString(in.resolve("a.txt"), "123");
    Files.writeString(in.resolve("_COPYING_"), "ignored");
    Files.writeString(in.resolve(".hidden"), "ignored");
    StreamSource.Batch first = source.take(2_000);
    Files.writeString(in.resolve("c.txt"), "1");
    StreamSource.Batch second = source.take(3_000);

    assertEquals(List.of("a.txt", "b.txt"), names(first));
    assertEquals(8, first.records());
    assertEquals(List.of("c.txt"), names(second));
    assertEquals(1, second.records());
    assertEquals(0, source.take(4_000).records());
  }

  @Test
  void anEmptyFileIsTakenButGivesNoSplit() throws IOException {
    DirSource source = source();
    Files.createFile(in.resolve("empty"));
    assertEquals(List.of(), names(source.take(1_000)));
    Files.writeString(in.resolve("empty"), "late bytes are not read again");
    assertEquals(List.of(), names(source.take(2_000)), "a file is taken once, by name");
  }

  @Test
  void aFileLargerThanTheSplitSizeIsSplit() throws IOException {
    conf.setLong("tide.wordcount.splitSize", 4);
    DirSource source = source();
    Files.writeString(in.resolve("big"), "0123456789");
    assertEquals(List.of("big", "big", "big"), names(source.take(1_000)));
  }

  @Test
  void aRestartedSourceSkipsEveryFileAnEarlierRunTook() throws IOException {
    DirSource first = source();
    Files.writeString(in.resolve("old-1"), "x");
    Files.writeString(in.resolve("old-2"), "y");
    List<StreamSource.Batch> logged = List.of(first.take(1_000));
    Files.writeString(in.resolve("new"), "z");

    DirSource restarted = new DirSource(conf, in.toString());
    restarted.restore(logged);

    assertEquals(List.of("new"), names(restarted.take(2_000)));
  }

  @Test
  void aMissingDirectoryFailsTheBatchNamingIt() throws IOException {
    DirSource source = new DirSource(conf, dir.resolve("gone").toString());
    IOException e = assertThrows(IOException.class, () -> source.take(1_000));
    assertTrue(e.getMessage().endsWith("gone does not exist"), e.getMessage());
  }
}
