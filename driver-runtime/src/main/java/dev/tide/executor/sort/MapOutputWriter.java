package dev.tide.executor.sort;

import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.Partitioner;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A map task's output in bounded memory: records go into a {@link SortBuffer} of a fixed size;
 * when it is full it is sorted by (partition, key), combined (if the job names a combiner) and
 * spilled to a file in {@code spillDir}; {@link #finish} merges the spills (at most
 * {@link #MERGE_FACTOR} files open at once, in several passes if need be) into the one data file
 * the shuffle service serves, each partition sorted by key. Every spill carries a CRC32C per
 * partition, verified when it is read back for the merge. Memory: the buffer, plus one
 * 32 KiB read buffer per spill while merging. {@link #close} deletes every spill file, also after
 * a failure. Not thread-safe.
 */
public final class MapOutputWriter implements AutoCloseable {
  /** Spills merged at once. */
  static final int MERGE_FACTOR = 64;
  private static final int WRITE_BUFFER_BYTES = 64 << 10;

  private final int partitions;
  private int[] finishedChecksums;
  private final Partitioner partitioner;
  private final SortBuffer buffer;
  private final Combiner combiner;
  private final Path spillDir;
  private final List<Spill> spills = new ArrayList<>();
  private int spillFiles;
  private long records;
  private long spilledBytes;
  private int spillCount;

  /**
   * @param bufferBytes memory of the sort buffer (record bytes and metadata)
   * @param combiner the job's combiner, or null
   * @param spillDir where spill files go (created when the first is written)
   */
  public MapOutputWriter(int partitions, long bufferBytes, Combiner combiner, Path spillDir) {
    this(partitions, new Partitioner.Hash(), bufferBytes, combiner, spillDir);
  }

  /** @param partitioner spreads records over the partitions */
  public MapOutputWriter(int partitions, Partitioner partitioner, long bufferBytes,
      Combiner combiner, Path spillDir) {
    this.partitions = partitions;
    this.partitioner = partitioner;
    this.buffer = new SortBuffer(bufferBytes);
    this.combiner = combiner;
    this.spillDir = spillDir;
  }

  public void emit(byte[] key, byte[] value) throws IOException {
    records++;
    int p = partitioner.partition(key, partitions);
    if (p < 0 || p >= partitions) {
      throw new IllegalStateException("partitioner " + partitioner.getClass().getName()
          + " put a key in partition " + p + " of " + partitions);
    }
    if (!buffer.fits(key.length, value.length)) {
      if (!buffer.isEmpty()) {
        spills.add(writeBuffer(nextSpillFile()));
        spillCount++;
      }
      if (!buffer.couldFit(key.length, value.length)) {
        spills.add(singleRecord(p, key, value));
        spillCount++;
        return;
      }
    }
    buffer.add(p, key, value);
  }

  /**
   * Writes the map output to {@code dataFile}.
   *
   * @return the length of each partition's segment, in order
   */
  public long[] finish(Path dataFile) throws IOException {
    Spill out;
    if (spills.isEmpty()) {
      out = writeBuffer(dataFile);
    } else {
      if (!buffer.isEmpty()) {
        spills.add(writeBuffer(nextSpillFile()));
        spillCount++;
      }
      while (spills.size() > MERGE_FACTOR) {
        List<Spill> first = new ArrayList<>(spills.subList(0, MERGE_FACTOR));
        spills.removeAll(first);
        spills.add(0, merge(first, nextSpillFile())); // first: equal keys keep emit order
        delete(first);
      }
      if (spills.size() == 1 && combiner == null) {
        Spill only = spills.remove(0);
        Files.move(only.file(), dataFile, StandardCopyOption.REPLACE_EXISTING);
        out = new Spill(dataFile, only.offsets(), only.checksums());
      } else {
        out = merge(spills, dataFile);
        delete(spills);
        spills.clear();
      }
    }
    long[] lengths = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      lengths[p] = out.offsets()[p + 1] - out.offsets()[p];
    }
    finishedChecksums = out.checksums().clone();
    return lengths;
  }

  /** The CRC32C of each partition's segment of the output {@link #finish} wrote. */
  public int[] checksums() {
    if (finishedChecksums == null) {
      throw new IllegalStateException("the map output is not finished");
    }
    return finishedChecksums.clone();
  }

  /** Records emitted. */
  public long records() {
    return records;
  }

  /** Spills of the sort buffer to disk (0 when the output fit in the buffer). */
  public int spills() {
    return spillCount;
  }

  /** Bytes written to spill files (merge passes included), the final output excluded. */
  public long spilledBytes() {
    return spilledBytes;
  }

  private Path nextSpillFile() throws IOException {
    Files.createDirectories(spillDir);
    return spillDir.resolve("spill-" + (spillFiles++) + ".run");
  }

  private Spill writeBuffer(Path file) throws IOException {
    Spill run = writeRun(file, run1 ->
        buffer.writeSorted(partitions, (p, sorted) -> {
          run1.begin(p);
          Combining.copy(sorted, combiner, run1.out);
        }));
    buffer.clear();
    return run;
  }

  private Spill singleRecord(int p, byte[] key, byte[] value) throws IOException {
    return writeRun(nextSpillFile(), run -> {
      run.begin(p);
      run.out.write(key, value);
    });
  }

  private Spill merge(List<Spill> runs, Path file) throws IOException {
    return writeRun(file, run -> {
      for (int p = 0; p < partitions; p++) {
        run.begin(p);
        List<SortedRecords> inputs = new ArrayList<>();
        for (Spill spill : runs) {
          inputs.add(spill.partition(p));
        }
        try (RecordMerger merged = new RecordMerger(inputs)) {
          Combining.copy(merged, combiner, run.out);
        }
      }
    });
  }

  /**
   * One sorted run being written: partitions are begun in order (skipped ones are empty); each
   * partition's offset and CRC32C are recorded as it ends.
   */
  private final class RunWriter {
    final RecordOutput out;
    final long[] offsets = new long[partitions + 1];
    final int[] checksums = new int[partitions];
    private int next;

    RunWriter(OutputStream os) {
      out = new RecordOutput(os);
    }

    /** Ends the partitions before {@code p} and begins {@code p}. */
    void begin(int p) {
      while (next <= p) {
        if (next > 0) {
          checksums[next - 1] = out.takeChecksum();
        }
        offsets[next++] = out.bytes();
      }
    }

    void finish() {
      begin(partitions - 1);
      checksums[partitions - 1] = out.takeChecksum();
      offsets[partitions] = out.bytes();
    }
  }

  /** Writes a run's partitions. */
  private interface RunBody {
    void write(RunWriter run) throws IOException;
  }

  private Spill writeRun(Path file, RunBody body) throws IOException {
    RunWriter run;
    try (OutputStream os = open(file)) {
      run = new RunWriter(os);
      body.write(run);
      run.finish();
    } catch (VerifiedInput.CorruptFileException e) {
      throw e; // a spill read back for this merge, not this write, failed
    } catch (IOException e) {
      throw diskError(file, e);
    }
    countSpilled(file, run.offsets[partitions]);
    return new Spill(file, run.offsets, run.checksums);
  }

  private void countSpilled(Path file, long bytes) {
    if (file.startsWith(spillDir)) {
      spilledBytes += bytes;
    }
  }

  private static OutputStream open(Path file) throws IOException {
    return new BufferedOutputStream(Files.newOutputStream(file), WRITE_BUFFER_BYTES);
  }

  /** An I/O failure on a local file, with the file and the room left on its disk. */
  static IOException diskError(Path file, IOException e) {
    long free = -1;
    try {
      free = Files.getFileStore(file.getParent()).getUsableSpace();
    } catch (IOException | RuntimeException ignored) {
      // the message below says it is unknown
    }
    return new IOException("cannot write " + file + " (" + (free < 0 ? "free space unknown"
        : free + " bytes free on its disk") + "): " + e, e);
  }

  private static void delete(List<Spill> runs) throws IOException {
    for (Spill run : runs) {
      Files.deleteIfExists(run.file());
    }
  }

  /** Deletes every spill file and the spill dir; safe to call twice. */
  @Override
  public void close() throws IOException {
    spills.clear();
    if (!Files.exists(spillDir)) {
      return;
    }
    try (Stream<Path> files = Files.list(spillDir)) {
      files.forEach(f -> {
        try {
          Files.deleteIfExists(f);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    Files.deleteIfExists(spillDir);
  }
}
