package dev.tide.input;

import dev.tide.driver.job.InputSplit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Splits the files under an input path into byte ranges of at most one block (or
 * {@code splitSize}), each preferring the hosts that store that block.
 */
public final class FileRangeSplits {
  /** A byte range of one file. */
  public record FileRange(String path, long start, long length) {}

  private FileRangeSplits() {}

  public static List<InputSplit> plan(Configuration conf, String input, long splitSize)
      throws IOException {
    List<InputSplit> splits = plan(conf, inputFiles(conf, input), splitSize);
    if (splits.isEmpty()) {
      throw nothingToRead(conf, input);
    }
    return splits;
  }

  /**
   * Checks, without reading any data, that {@link #plan} finds something to read at
   * {@code input}: the path exists and it, or a file in it, is not empty.
   *
   * @throws IOException naming the path and what is wrong
   */
  public static void checkInput(Configuration conf, String input) throws IOException {
    if (inputFiles(conf, input).stream().noneMatch(file -> file.getLen() > 0)) {
      throw nothingToRead(conf, input);
    }
  }

  private static IOException nothingToRead(Configuration conf, String input) throws IOException {
    Path root = new Path(input);
    FileSystem fs = root.getFileSystem(conf);
    return new IOException(fs.getFileStatus(root).isFile()
        ? "input file " + fs.makeQualified(root) + " is empty"
        : "input path " + fs.makeQualified(root) + " holds no non-empty files (files whose"
            + " names start with '_' or '.' are not read)");
  }

  /** The splits of the given files (none for empty files). */
  public static List<InputSplit> plan(Configuration conf, List<FileStatus> files,
      long splitSize) throws IOException {
    List<InputSplit> splits = new ArrayList<>();
    for (FileStatus file : files) {
      FileSystem fs = file.getPath().getFileSystem(conf);
      long size = splitSize > 0 ? splitSize : Math.max(file.getBlockSize(), 1);
      BlockLocation[] blocks = fs.getFileBlockLocations(file, 0, file.getLen());
      for (long start = 0; start < file.getLen(); start += size) {
        long length = Math.min(size, file.getLen() - start);
        splits.add(new InputSplit(encode(new FileRange(file.getPath().toString(), start, length)),
            hostsAt(blocks, start)));
      }
    }
    return splits;
  }

  /**
   * The files of an input path, by name: the path itself if it is a file, else the files in it
   * whose names do not start with '_' or '.' (as _SUCCESS).
   */
  public static List<FileStatus> inputFiles(Configuration conf, String input) throws IOException {
    Path root = new Path(input);
    FileSystem fs = root.getFileSystem(conf);
    if (!fs.exists(root)) {
      throw new IOException("input path " + fs.makeQualified(root) + " does not exist");
    }
    List<FileStatus> files = new ArrayList<>();
    FileStatus rootStatus = fs.getFileStatus(root);
    if (rootStatus.isFile()) {
      files.add(rootStatus); // listStatus of a file lists the file itself: read it once
    } else {
      for (FileStatus status : fs.listStatus(root)) {
        String name = status.getPath().getName();
        if (status.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
          files.add(status);
        }
      }
    }
    files.sort((a, b) -> a.getPath().compareTo(b.getPath()));
    return files;
  }

  private static List<String> hostsAt(BlockLocation[] blocks, long offset) throws IOException {
    for (BlockLocation block : blocks) {
      if (offset >= block.getOffset() && offset < block.getOffset() + block.getLength()) {
        return Arrays.asList(block.getHosts());
      }
    }
    return List.of();
  }

  static byte[] encode(FileRange range) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(range.path());
      out.writeLong(range.start());
      out.writeLong(range.length());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  public static FileRange decode(byte[] payload) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
      return new FileRange(in.readUTF(), in.readLong(), in.readLong());
    }
  }
}
