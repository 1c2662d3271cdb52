package dev.tide.it.secure;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code LookupJob <words file> <output> <marker dir>}: a user job whose tasks make their own
 * FileSystem calls. Each of {@link #SPLITS} map tasks opens the words file itself (one word a
 * line) and emits each word once; the reducers write {@code word<TAB>count} lines (each count
 * is {@link #SPLITS}) and each also creates {@code <marker dir>/reduce-<partition>} itself.
 */
public final class LookupJob implements TideJob {
  static final int SPLITS = 3;

  @Override
  public JobPlan plan(JobContext context) {
    List<InputSplit> splits = new java.util.ArrayList<>();
    for (int i = 0; i < SPLITS; i++) {
      splits.add(new InputSplit(new byte[] {(byte) i}, List.of()));
    }
    return JobPlan.mapReduce("lookup", splits, LookupMapper.class, CountReducer.class, 2,
        context.args().get(1));
  }

  /** Reads the words file with its own FileSystem call. */
  public static final class LookupMapper implements Mapper {
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Path words = new Path(context.args().get(0));
      FileSystem fs = words.getFileSystem(context.conf());
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(fs.open(words), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (!line.isBlank()) {
            output.emit(line.trim().getBytes(StandardCharsets.UTF_8), new byte[] {1});
          }
        }
      }
    }
  }

  /** Counts each word's records; writes a marker file of its own. */
  public static final class CountReducer implements Reducer {
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
    }

    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      Path marker = new Path(context.args().get(2), "reduce-" + partition);
      marker.getFileSystem(context.conf()).create(marker, true).close();
      try (Writer out = new java.io.OutputStreamWriter(output.open(), StandardCharsets.UTF_8)) {
        byte[] word = null;
        long count = 0;
        while (records.hasNext()) {
          KeyValue record = records.next();
          if (word != null && !Arrays.equals(word, record.key())) {
            out.write(new String(word, StandardCharsets.UTF_8) + "\t" + count + "\n");
            count = 0;
          }
          word = record.key();
          count++;
        }
        if (word != null) {
          out.write(new String(word, StandardCharsets.UTF_8) + "\t" + count + "\n");
        }
      }
    }
  }
}
