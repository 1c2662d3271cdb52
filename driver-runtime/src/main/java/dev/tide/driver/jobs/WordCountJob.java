package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.input.FileRangeSplits;
import dev.tide.input.LineRanges;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code wordcount <input> <output>}: counts whitespace-separated words of the text files under
 * {@code input} (any Hadoop FileSystem) and writes {@code word<TAB>count} lines, sorted by word,
 * to {@code output/part-r-NNNNN}. Settings: {@code tide.wordcount.reducers} (2),
 * {@code tide.wordcount.splitSize} (bytes; 0 = one split per block); see {@link TideOptions}.
 */
public final class WordCountJob implements TideJob {
  @Override
  public void checkArguments(JobContext context) {
    if (context.args().size() != 2) {
      throw new IllegalArgumentException("usage: wordcount <input path> <output path>; got "
          + context.args().size() + " arguments " + context.args());
    }
  }

  @Override
  public void checkPaths(JobContext context) throws IOException {
    JobPaths.requireInput(context.conf(), context.args().get(0));
    JobPaths.requireNewOutput(context.conf(), context.args().get(1));
  }

  @Override
  public JobPlan plan(JobContext context) throws Exception {
    checkArguments(context);
    List<String> args = context.args();
    int reducers = TideOptions.WORDCOUNT_REDUCERS.get(context.conf());
    long splitSize = TideOptions.WORDCOUNT_SPLIT_SIZE.get(context.conf());
    List<InputSplit> splits = FileRangeSplits.plan(context.conf(), args.get(0), splitSize);
    return JobPlan.mapReduce("wordcount", splits, WordCountMapper.class,
        WordCountReducer.class, reducers, args.get(1));
  }

  /**
   * Counts the words of one split and emits (word, count), folding repeats in a map of at most
   * {@link #MAX_DISTINCT_WORDS} words that is emitted and cleared whenever it fills, so a split
   * of any size is counted in bounded memory; {@link SumCombiner} folds the rest.
   */
  public static final class WordCountMapper extends ConfiguredMapper {
    static final int MAX_DISTINCT_WORDS = 50_000;

    @Override
    public Combiner combiner() {
      return new SumCombiner();
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Map<String, Long> counts = new HashMap<>();
      IOException[] failed = new IOException[1];
      LineRanges.forEachLine(context.conf(), FileRangeSplits.decode(split.payload()), line -> {
        for (String word : line.split("\\s+")) {
          if (!word.isEmpty()) {
            counts.merge(word, 1L, Long::sum);
          }
        }
        if (counts.size() >= MAX_DISTINCT_WORDS && failed[0] == null) {
          failed[0] = emitAll(counts, output);
        }
      });
      if (failed[0] != null) {
        throw failed[0];
      }
      IOException last = emitAll(counts, output);
      if (last != null) {
        throw last;
      }
    }

    private static IOException emitAll(Map<String, Long> counts, MapOutput output) {
      try {
        for (Map.Entry<String, Long> e : counts.entrySet()) {
          output.emit(e.getKey().getBytes(StandardCharsets.UTF_8), encode(e.getValue()));
        }
        return null;
      } catch (IOException e) {
        return e;
      } finally {
        counts.clear();
      }
    }
  }

  static byte[] encode(long count) {
    return ByteBuffer.allocate(Long.BYTES).putLong(count).array();
  }

  /** Sums the 8-byte counts of one word. */
  public static final class SumCombiner implements Combiner {
    @Override
    public byte[] combine(byte[] key, Iterator<byte[]> values) {
      long sum = 0;
      while (values.hasNext()) {
        sum += ByteBuffer.wrap(values.next()).getLong();
      }
      return encode(sum);
    }
  }

  /**
   * Sums the counts of each word of one partition as they stream by (records come sorted by
   * word, so one word's counts are adjacent) and writes {@code word<TAB>count} lines in that
   * order; holds one word at a time.
   */
  public static final class WordCountReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      try (Writer out = new BufferedWriter(
          new OutputStreamWriter(output.open(), StandardCharsets.UTF_8))) {
        byte[] word = null;
        long sum = 0;
        while (records.hasNext()) {
          KeyValue record = records.next();
          if (word != null && !Arrays.equals(word, record.key())) {
            out.write(new String(word, StandardCharsets.UTF_8) + "\t" + sum + "\n");
            sum = 0;
          }
          word = record.key();
          sum += ByteBuffer.wrap(record.value()).getLong();
        }
        if (word != null) {
          out.write(new String(word, StandardCharsets.UTF_8) + "\t" + sum + "\n");
        }
      }
    }
  }
}
