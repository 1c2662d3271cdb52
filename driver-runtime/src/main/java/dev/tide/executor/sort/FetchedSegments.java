package dev.tide.executor.sort;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A reduce task's fetched segments (each sorted by key), kept in memory while they fit in
 * {@code memoryBudget} and written to files in {@code dir} otherwise, then read back as one
 * sorted stream ({@link #merged}): a k-way merge with at most {@link MapOutputWriter#MERGE_FACTOR}
 * files open, after merge passes over the files if there are more. Files carry the CRC32C of
 * what was written, verified as they are read back. {@link #close} deletes the
 * files, also after a failure. Segments may be filled from another thread (the shuffle client's
 * I/O thread) than the one that merges, but not concurrently with {@link #merged}.
 */
public final class FetchedSegments implements AutoCloseable {
  private final long memoryBudget;
  private final Path dir;
  private final List<Sink> segments = new ArrayList<>();
  private long inMemoryBytes;
  private long onDiskBytes;
  private long mergedBytes;
  private int files;

  public FetchedSegments(long memoryBudget, Path dir) {
    this.memoryBudget = memoryBudget;
    this.dir = dir;
  }

  /** Where the bytes of one segment go: written in order, then {@link #finish}ed. */
  public interface SegmentSink {
    void write(ByteBuffer bytes) throws IOException;

    void finish() throws IOException;

    /** Drops what was written (the fetch is retried or failed). */
    void abandon() throws IOException;

    /** Whether {@link #write} goes to a local file (may block), not to memory. */
    default boolean onDisk() {
      return false;
    }
  }

  private abstract static class Sink implements SegmentSink {
    final String source;

    Sink(String source) {
      this.source = source;
    }

    abstract SortedRecords open() throws IOException;
  }

  /**
   * A new segment of {@code length} bytes from {@code source} (for error messages): in memory
   * if it fits what is left of the budget, else in a file.
   */
  public synchronized SegmentSink add(String source, long length) throws IOException {
    Sink sink;
    if (inMemoryBytes + length <= memoryBudget) {
      inMemoryBytes += length;
      sink = new MemorySink(source, (int) length);
    } else {
      onDiskBytes += length;
      sink = new FileSink(source, nextFile(), length);
    }
    segments.add(sink);
    return sink;
  }

  /** Bytes held in memory now. */
  public synchronized long inMemoryBytes() {
    return inMemoryBytes;
  }

  /** Bytes of segments written to local disk. */
  public synchronized long onDiskBytes() {
    return onDiskBytes;
  }

  /** Bytes written again by merge passes (0 unless there were many segments on disk). */
  public synchronized long mergedBytes() {
    return mergedBytes;
  }

  /** Every segment's records as one stream sorted by key; equal keys adjacent. */
  public synchronized SortedRecords merged() throws IOException {
    List<Sink> onDisk = new ArrayList<>();
    List<SortedRecords> inputs = new ArrayList<>();
    for (Sink s : segments) {
      if (s instanceof FileSink) {
        onDisk.add(s);
      } else {
        inputs.add(s.open());
      }
    }
    while (onDisk.size() > MapOutputWriter.MERGE_FACTOR) {
      List<Sink> group = new ArrayList<>(onDisk.subList(0, MapOutputWriter.MERGE_FACTOR));
      onDisk.removeAll(group);
      onDisk.add(mergeToFile(group));
    }
    for (Sink s : onDisk) {
      inputs.add(s.open());
    }
    return new RecordMerger(inputs);
  }

  private FileSink mergeToFile(List<Sink> group) throws IOException {
    Path file = nextFile();
    List<SortedRecords> inputs = new ArrayList<>();
    for (Sink s : group) {
      inputs.add(s.open());
    }
    long bytes;
    int checksum;
    try (RecordMerger merger = new RecordMerger(inputs);
         java.io.OutputStream os = new java.io.BufferedOutputStream(
             Files.newOutputStream(file), 64 << 10)) {
      RecordOutput out = new RecordOutput(os);
      Combining.copy(merger, null, out);
      bytes = out.bytes();
      checksum = out.takeChecksum();
    } catch (VerifiedInput.CorruptFileException e) {
      throw e;
    } catch (IOException e) {
      throw MapOutputWriter.diskError(file, e);
    }
    for (Sink s : group) {
      s.abandon();
    }
    mergedBytes += bytes;
    FileSink merged = new FileSink("merge of " + group.size() + " segments", file, bytes);
    merged.written = bytes;
    merged.checksum = checksum;
    return merged;
  }

  private Path nextFile() throws IOException {
    Files.createDirectories(dir);
    return dir.resolve("segment-" + (files++) + ".run");
  }

  private final class MemorySink extends Sink {
    private byte[] bytes;
    private int written;

    MemorySink(String source, int length) {
      super(source);
      this.bytes = new byte[length];
    }

    @Override
    public void write(ByteBuffer data) {
      int n = data.remaining();
      data.get(bytes, written, n);
      written += n;
    }

    @Override
    public void finish() throws IOException {
      if (written != bytes.length) {
        throw new IOException(source + ": got " + written + " of " + bytes.length + " bytes");
      }
    }

    @Override
    public void abandon() {
      synchronized (FetchedSegments.this) {
        if (bytes != null) {
          inMemoryBytes -= bytes.length;
          segments.remove(this);
          bytes = null;
        }
      }
    }

    @Override
    SortedRecords open() {
      byte[] b = bytes;
      return SortedRecords.of(new RecordInput(new ByteArrayInputStream(b), source));
    }
  }

  private final class FileSink extends Sink {
    private final Path file;
    private final long length;
    private FileChannel channel;
    private long written;
    private final CRC32C crc = new CRC32C();
    private int checksum;

    FileSink(String source, Path file, long length) {
      super(source);
      this.file = file;
      this.length = length;
    }

    @Override
    public boolean onDisk() {
      return true;
    }

    @Override
    public void write(ByteBuffer data) throws IOException {
      try {
        if (channel == null) {
          channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING);
        }
        crc.update(data.duplicate());
        while (data.hasRemaining()) {
          written += channel.write(data);
        }
      } catch (IOException e) {
        throw MapOutputWriter.diskError(file, e);
      }
    }

    @Override
    public void finish() throws IOException {
      if (channel != null) {
        channel.close();
        channel = null;
      }
      checksum = (int) crc.getValue();
      if (written != length) {
        throw new IOException(source + ": got " + written + " of " + length + " bytes");
      }
    }

    @Override
    public void abandon() throws IOException {
      if (channel != null) {
        channel.close();
        channel = null;
      }
      synchronized (FetchedSegments.this) {
        segments.remove(this);
      }
      Files.deleteIfExists(file);
    }

    @Override
    SortedRecords open() throws IOException {
      String what = "local copy " + file + " of " + source;
      return SortedRecords.of(new RecordInput(new VerifiedInput(
          new FileRangeInput(file, 0, written), checksum, what), what));
    }
  }

  /** Deletes every file (and the dir); safe to call twice. */
  @Override
  public synchronized void close() throws IOException {
    for (Sink s : new ArrayList<>(segments)) {
      if (s instanceof FileSink f && f.channel != null) {
        f.channel.close();
      }
    }
    segments.clear();
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> list = Files.list(dir)) {
      for (Path f : list.toList()) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }
}
