package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The path checks jobs make on the client, before anything is submitted. */
class JobPathsTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();

  private String inputError(Path input) {
    return assertThrows(IOException.class,
        () -> JobPaths.requireInput(conf, input.toString())).getMessage();
  }

  @Test
  void anInputMustExistAndHoldSomethingToRead() throws IOException {
    assertEquals("input path file:" + dir.resolve("missing") + " does not exist",
        inputError(dir.resolve("missing")));
    Path empty = Files.createFile(dir.resolve("empty.txt"));
    assertEquals("input file file:" + empty + " is empty", inputError(empty));
  }

  @Test
  void aDirectoryOfOnlyHiddenOrEmptyFilesHasNothingToRead() throws IOException {
    Path in = Files.createDirectory(dir.resolve("in"));
    Files.writeString(in.resolve("_SUCCESS"), "x");
    Files.writeString(in.resolve(".part.crc"), "x");
    Files.createFile(in.resolve("part-0"));
    Files.createDirectory(in.resolve("sub"));
    Files.writeString(in.resolve("sub").resolve("nested"), "not read: one level only");

    assertEquals("input path file:" + in + " holds no non-empty files (files whose names start"
        + " with '_' or '.' are not read)", inputError(in));

    Files.writeString(in.resolve("part-1"), "data");
    JobPaths.requireInput(conf, in.toString());
  }

  @Test
  void aBatchOutputMustNotExistYet() throws IOException {
    Path out = dir.resolve("out");
    JobPaths.requireNewOutput(conf, out.toString());
    JobPaths.requireNewOutput(conf, "");
    Files.createDirectory(out);
    assertEquals("output directory file:" + out + " already exists", assertThrows(
        IOException.class, () -> JobPaths.requireNewOutput(conf, out.toString())).getMessage());
  }

  @Test
  void aStreamOutputMayExistButNotAsAFile() throws IOException {
    Path out = dir.resolve("stream");
    JobPaths.requireStreamOutput(conf, out.toString());
    Files.createDirectory(out);
    JobPaths.requireStreamOutput(conf, out.toString());
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertEquals("output file:" + file + " is a file, not a directory", assertThrows(
        IOException.class, () -> JobPaths.requireStreamOutput(conf, file.toString()))
        .getMessage());
  }
}
