package dev.tide.driver.streaming;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The batches a streaming job took from its source, one file per batch under the checkpoint
 * directory ({@code batch-<time>}), each written before its batch runs (write, then rename: a
 * reader never sees half a file) and read back when the job is resubmitted: batches whose
 * output was not committed run again with the same input, and the source continues after the
 * last one. A file carries a version header and a CRC32C of its content; a damaged file is
 * refused with its path.
 *
 * <p>So that a stream that runs for days does not leave one file per batch (thousands an hour
 * at a short interval, all read back on resubmission), every {@value #COMPACT_EVERY} batch files
 * are merged with the last compacted file into one {@code compact-<time>} file (write, rename,
 * then delete what it holds; a batch found in two files after a crash is read once).
 */
final class BatchLog {
  private static final int MAGIC = 0x54424c31; // "TBL1"
  private static final String PREFIX = "batch-";
  private static final String COMPACT_PREFIX = "compact-";
  /** Batch files beyond which they are merged into one compacted file. */
  static final int COMPACT_EVERY = 100;

  private final FileSystem fs;
  private final Path dir;
  /** Batch files (not compacted) in the directory, as far as this log knows. */
  private int batchFiles = -1;

  private BatchLog(FileSystem fs, Path dir) {
    this.fs = fs;
    this.dir = dir;
  }

  static BatchLog open(Configuration conf, String checkpointDir) throws IOException {
    Path dir = new Path(checkpointDir);
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    return new BatchLog(fs, fs.makeQualified(dir));
  }

  Path dir() {
    return dir;
  }

  /** Every logged batch, oldest first. */
  List<StreamSource.Batch> readAll() throws IOException {
    java.util.TreeMap<Long, StreamSource.Batch> batches = new java.util.TreeMap<>();
    int files = 0;
    for (FileStatus file : fs.listStatus(dir, p -> p.getName().startsWith(PREFIX)
        || p.getName().startsWith(COMPACT_PREFIX))) {
      byte[] body = readBody(file.getPath());
      if (file.getPath().getName().startsWith(PREFIX)) {
        files++;
        StreamSource.Batch batch = decode(body);
        batches.put(batch.timeMillis(), batch);
      } else {
        for (StreamSource.Batch batch : decodeAll(body, file.getPath())) {
          batches.putIfAbsent(batch.timeMillis(), batch);
        }
      }
    }
    batchFiles = files;
    return new ArrayList<>(batches.values());
  }

  /** Files in the checkpoint directory that hold batches (for tests and the log line). */
  int files() throws IOException {
    return fs.listStatus(dir, p -> p.getName().startsWith(PREFIX)
        || p.getName().startsWith(COMPACT_PREFIX)).length;
  }

  /** Logs a batch before it runs; replaces nothing (a batch time is logged once). */
  void write(StreamSource.Batch batch) throws IOException {
    Path file = new Path(dir, PREFIX + batch.timeMillis());
    Path temp = new Path(dir, "." + PREFIX + batch.timeMillis() + ".tmp");
    writeFile(temp, encode(batch));
    if (!fs.rename(temp, file)) {
      throw new IOException("could not log batch " + batch.timeMillis() + ": rename of " + temp
          + " to " + file + " failed (is the batch already logged?)");
    }
    if (batchFiles >= 0 && ++batchFiles >= COMPACT_EVERY) {
      compact();
    }
  }

  /**
   * Merges every batch file and the compacted file into a new compacted file named after the
   * newest batch, then deletes what it merged.
   */
  private void compact() throws IOException {
    FileStatus[] merged = fs.listStatus(dir, p -> p.getName().startsWith(PREFIX)
        || p.getName().startsWith(COMPACT_PREFIX));
    List<StreamSource.Batch> batches = readAll();
    if (batches.isEmpty()) {
      return;
    }
    long newest = batches.get(batches.size() - 1).timeMillis();
    Path file = new Path(dir, COMPACT_PREFIX + newest);
    Path temp = new Path(dir, "." + COMPACT_PREFIX + newest + ".tmp");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(batches.size());
      for (StreamSource.Batch batch : batches) {
        byte[] one = encode(batch);
        out.writeInt(one.length);
        out.write(one);
      }
    }
    writeFile(temp, bytes.toByteArray());
    if (!fs.rename(temp, file)) {
      throw new IOException("could not compact the streaming checkpoint " + dir + ": rename of "
          + temp + " to " + file + " failed");
    }
    for (FileStatus old : merged) {
      if (!old.getPath().equals(file)) {
        fs.delete(old.getPath(), false);
      }
    }
    batchFiles = 0;
  }

  private void writeFile(Path path, byte[] body) throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(body);
    try (OutputStream out = fs.create(path, true);
        DataOutputStream data = new DataOutputStream(out)) {
      data.writeInt(MAGIC);
      data.writeInt(body.length);
      data.write(body);
      data.writeLong(crc.getValue());
    }
  }

  private static List<StreamSource.Batch> decodeAll(byte[] body, Path file) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("streaming checkpoint file " + file + " is damaged (count " + n
          + ")");
    }
    List<StreamSource.Batch> batches = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batches.add(decode(in.readNBytes(in.readInt())));
    }
    return batches;
  }

  private byte[] readBody(Path file) throws IOException {
    try (InputStream in = fs.open(file); DataInputStream data = new DataInputStream(in)) {
      if (data.readInt() != MAGIC) {
        throw new IOException("streaming checkpoint file " + file + " is not a Tide batch log"
            + " (bad header)");
      }
      int length = data.readInt();
      if (length < 0 || length > (64 << 20)) {
        throw new IOException("streaming checkpoint file " + file + " is damaged (length "
            + length + ")");
      }
      byte[] body = data.readNBytes(length);
      CRC32C crc = new CRC32C();
      crc.update(body);
      if (body.length != length || data.readLong() != crc.getValue()) {
        throw new IOException("streaming checkpoint file " + file + " is damaged (checksum)");
      }
      return body;
    } catch (EOFException e) {
      throw new IOException("streaming checkpoint file " + file + " is truncated", e);
    } catch (ChecksumException e) {
      throw new IOException("streaming checkpoint file " + file + " is damaged (checksum of"
          + " the FileSystem: " + e.getMessage() + ")", e);
    }
  }

  static byte[] encode(StreamSource.Batch batch) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeLong(batch.timeMillis());
      out.writeLong(batch.records());
      out.writeInt(batch.splits().size());
      for (InputSplit split : batch.splits()) {
        byte[] payload = split.payload();
        out.writeInt(payload.length);
        out.write(payload);
        out.writeInt(split.preferredHosts().size());
        for (String host : split.preferredHosts()) {
          out.writeUTF(host);
        }
      }
      byte[] position = batch.position();
      out.writeInt(position.length);
      out.write(position);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  static StreamSource.Batch decode(byte[] body) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
    long time = in.readLong();
    long records = in.readLong();
    int n = in.readInt();
    List<InputSplit> splits = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] payload = in.readNBytes(in.readInt());
      int hostCount = in.readInt();
      List<String> hosts = new ArrayList<>(hostCount);
      for (int h = 0; h < hostCount; h++) {
        hosts.add(in.readUTF());
      }
      splits.add(new InputSplit(payload, hosts));
    }
    byte[] position = in.readNBytes(in.readInt());
    return new StreamSource.Batch(time, splits, records, position);
  }
}
