package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.input.FileRangeSplits;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.zip.CRC32;

/**
 * {@code sortvalidate <input> <sorted> <report>}: checks a {@code sort} result as TeraValidate
 * and TeraChecksum do. One input stage reads the original records and sums a CRC32 per record
 * (an order-independent checksum) and counts them; another reads each part file of the sorted
 * output whole, in name order, checking that its keys never go down and noting its first and last
 * key; a join stage checks that each part's first key is not below the previous part's last key
 * and that counts and checksums match. It writes {@code report/part-r-00000} with the figures
 * when all holds, and fails naming the first problems when not.
 */
public final class SortValidateJob implements TideJob {
  private static final byte[] INPUT_KEY = "input".getBytes(StandardCharsets.UTF_8);

  @Override
  public void checkArguments(JobContext context) {
    if (context.args().size() != 3) {
      throw new IllegalArgumentException("usage: sortvalidate <input path> <sorted path>"
          + " <report path>");
    }
  }

  @Override
  public void checkPaths(JobContext context) throws IOException {
    JobPaths.requireInput(context.conf(), context.args().get(0));
    JobPaths.requireInput(context.conf(), context.args().get(1));
    JobPaths.requireNewOutput(context.conf(), context.args().get(2));
  }

  @Override
  public JobPlan plan(JobContext context) throws Exception {
    checkArguments(context);
    List<String> args = context.args();
    JobPlan.Builder plan = JobPlan.builder("sortvalidate");
    JobPlan.Stage input = plan.input("input", FileRangeSplits.plan(context.conf(), args.get(0),
        0), InputSumMapper.class);
    JobPlan.Stage sorted = plan.input("sorted", FileRangeSplits.plan(context.conf(),
        args.get(1), Long.MAX_VALUE), SortedFileMapper.class);
    return plan.output(plan.shuffle("check", 1, CheckReducer.class, input, sorted),
        args.get(2));
  }

  /** Count, checksum and order of one file or range. */
  record Summary(long records, long checksum, byte[] firstKey, byte[] lastKey,
      long firstMisorder) {
    byte[] encode() {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeLong(records);
        out.writeLong(checksum);
        out.writeLong(firstMisorder);
        out.writeInt(firstKey.length);
        out.write(firstKey);
        out.writeInt(lastKey.length);
        out.write(lastKey);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    static Summary decode(byte[] bytes) throws IOException {
      DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
      long records = in.readLong();
      long checksum = in.readLong();
      long misorder = in.readLong();
      byte[] first = in.readNBytes(in.readInt());
      byte[] last = in.readNBytes(in.readInt());
      return new Summary(records, checksum, first, last, misorder);
    }
  }

  /** Reads a range's records, summing their CRC32s and checking their keys' order. */
  static Summary summarize(JobContext context, InputSplit split) throws IOException {
    int recordBytes = TideOptions.SORT_RECORD_BYTES.get(context.conf());
    int keyBytes = TideOptions.SORT_KEY_BYTES.get(context.conf());
    CRC32 crc = new CRC32();
    long[] state = {0, 0, -1}; // records, checksum, first misordered record
    byte[][] keys = {new byte[0], null, null}; // first, last, scratch
    FixedRecords.forEach(context.conf(), FileRangeSplits.decode(split.payload()), recordBytes,
        Long.MAX_VALUE, record -> {
          crc.reset();
          crc.update(record, 0, recordBytes);
          state[1] += crc.getValue();
          if (keys[1] != null && state[2] < 0 && Arrays.compareUnsigned(record, 0, keyBytes,
              keys[1], 0, keyBytes) < 0) {
            state[2] = state[0];
          }
          if (keys[1] == null) {
            keys[0] = Arrays.copyOf(record, keyBytes);
            keys[1] = new byte[keyBytes];
          }
          System.arraycopy(record, 0, keys[1], 0, keyBytes);
          state[0]++;
        });
    return new Summary(state[0], state[1], keys[0], keys[1] == null ? new byte[0] : keys[1],
        state[2]);
  }

  /** Emits one record per task: (a key naming what it read, its summary). */
  private abstract static class SummaryMapper extends ConfiguredMapper {
    abstract byte[] key(InputSplit split) throws IOException;

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      output.emit(key(split), summarize(context, split).encode());
    }
  }

  /** Emits ("input", summary) for its range of the original input. */
  public static final class InputSumMapper extends SummaryMapper {
    @Override
    byte[] key(InputSplit split) {
      return INPUT_KEY;
    }
  }

  /** Emits (file name, summary) for one whole part file of the sorted output. */
  public static final class SortedFileMapper extends SummaryMapper {
    @Override
    byte[] key(InputSplit split) throws IOException {
      String path = FileRangeSplits.decode(split.payload()).path();
      return path.substring(path.lastIndexOf('/') + 1).getBytes(StandardCharsets.UTF_8);
    }
  }

  /** Compares the input's totals with the sorted files' and checks the order across files. */
  public static final class CheckReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      long inputRecords = 0;
      long inputChecksum = 0;
      long sortedRecords = 0;
      long sortedChecksum = 0;
      int files = 0;
      byte[] previousLast = null;
      String previousName = null;
      List<String> problems = new ArrayList<>();
      HexFormat hex = HexFormat.of();
      while (records.hasNext()) {
        KeyValue record = records.next();
        Summary s = Summary.decode(record.value());
        if (record.input() == 0) {
          inputRecords += s.records();
          inputChecksum += s.checksum();
          continue;
        }
        String name = new String(record.key(), StandardCharsets.UTF_8);
        files++;
        sortedRecords += s.records();
        sortedChecksum += s.checksum();
        if (s.firstMisorder() >= 0) {
          problems.add(name + ": record " + s.firstMisorder() + " has a smaller key than the"
              + " record before it");
        }
        if (previousLast != null && Arrays.compareUnsigned(s.firstKey(), previousLast) < 0) {
          problems.add(name + " starts with key " + hex.formatHex(s.firstKey())
              + ", below the last key " + hex.formatHex(previousLast) + " of " + previousName);
        }
        previousLast = s.lastKey();
        previousName = name;
      }
      if (sortedRecords != inputRecords) {
        problems.add("the sorted output has " + sortedRecords + " records, the input "
            + inputRecords);
      } else if (sortedChecksum != inputChecksum) {
        problems.add("the sorted output's checksum " + Long.toHexString(sortedChecksum)
            + " differs from the input's " + Long.toHexString(inputChecksum)
            + ": records were changed, lost or repeated");
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException("sortvalidate: the output is not a sort of the input: "
            + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
            + (problems.size() > 5 ? " (and " + (problems.size() - 5) + " more)" : ""));
      }
      try (OutputStream out = output.open()) {
        out.write(("records " + inputRecords + "\nchecksum " + Long.toHexString(inputChecksum)
            + "\nfiles " + files + "\nordered yes\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }
}
