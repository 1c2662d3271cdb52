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
 */
final class BatchLog {
  private static final int MAGIC = 0x54424c31; // "TBL1"
  private static final String PREFIX = "batch-";

  private final FileSystem fs;
  private final Path dir;

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
    List<StreamSource.Batch> batches = new ArrayList<>();
    for (FileStatus file : fs.listStatus(dir, p -> p.getName().startsWith(PREFIX))) {
      batches.add(read(file.getPath()));
    }
    batches.sort((a, b) -> Long.compare(a.timeMillis(), b.timeMillis()));
    return batches;
  }

  /** Logs a batch before it runs; replaces nothing (a batch time is logged once). */
  void write(StreamSource.Batch batch) throws IOException {
    Path file = new Path(dir, PREFIX + batch.timeMillis());
    Path temp = new Path(dir, "." + PREFIX + batch.timeMillis() + ".tmp");
    byte[] body = encode(batch);
    CRC32C crc = new CRC32C();
    crc.update(body);
    try (OutputStream out = fs.create(temp, true);
        DataOutputStream data = new DataOutputStream(out)) {
      data.writeInt(MAGIC);
      data.writeInt(body.length);
      data.write(body);
      data.writeLong(crc.getValue());
    }
    if (!fs.rename(temp, file)) {
      throw new IOException("could not log batch " + batch.timeMillis() + ": rename of " + temp
          + " to " + file + " failed (is the batch already logged?)");
    }
  }

  private StreamSource.Batch read(Path file) throws IOException {
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
      return decode(body);
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
