package dev.tide.examples;

import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.examples.text.Words;
import dev.tide.input.FileRangeSplits;
import dev.tide.input.LineRanges;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code StopWordCount <input> <output> [stop-words file]}: counts the words of the text files
 * under {@code input} ({@link Words}: runs of letters and digits, lower-cased; from the
 * {@code -libjars} jar) except the stop words, and writes {@code word<TAB>count} lines sorted by
 * word to {@code output/part-r-NNNNN}, as the built-in wordcount does. The
 * stop words are read from a file in each executor's working directory, {@code stopwords.txt}
 * unless named: ship it with {@code -files}, e.g. {@code -files /local/english.txt#stopwords.txt}.
 */
public final class StopWordCount implements TideJob {
  static final String DEFAULT_STOP_WORDS = "stopwords.txt";

  @Override
  public JobPlan plan(JobContext context) throws Exception {
    List<String> args = context.args();
    if (args.size() < 2 || args.size() > 3) {
      throw new IllegalArgumentException(
          "usage: StopWordCount <input> <output> [stop-words file]");
    }
    return JobPlan.mapReduce("stopwordcount", FileRangeSplits.plan(context.conf(), args.get(0),
        0), CountMapper.class, CountReducer.class, 2, args.get(1));
  }

  /** Counts one split's words that are not stop words; emits (word, 8-byte count). */
  public static final class CountMapper implements Mapper {
    private JobContext context;
    private Set<String> stopWords;

    @Override
    public void configure(JobContext context) throws IOException {
      this.context = context;
      String file = context.args().size() > 2 ? context.args().get(2) : DEFAULT_STOP_WORDS;
      stopWords = new HashSet<>();
      for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
        stopWords.addAll(Words.of(line));
      }
    }

    @Override
    public Combiner combiner() {
      return new SumCombiner();
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Map<String, Long> counts = new HashMap<>();
      LineRanges.forEachLine(context.conf(), FileRangeSplits.decode(split.payload()), line -> {
        for (String word : Words.of(line)) {
          if (!stopWords.contains(word)) {
            counts.merge(word, 1L, Long::sum);
          }
        }
      });
      for (Map.Entry<String, Long> e : counts.entrySet()) {
        output.emit(e.getKey().getBytes(StandardCharsets.UTF_8),
            ByteBuffer.allocate(Long.BYTES).putLong(e.getValue()).array());
      }
    }
  }

  /** Sums the 8-byte counts of one word in a map task's output. */
  public static final class SumCombiner implements Combiner {
    @Override
    public byte[] combine(byte[] key, Iterator<byte[]> values) {
      long sum = 0;
      while (values.hasNext()) {
        sum += ByteBuffer.wrap(values.next()).getLong();
      }
      return ByteBuffer.allocate(Long.BYTES).putLong(sum).array();
    }
  }

  /**
   * Writes {@code word<TAB>count} lines of one partition: its records come sorted by word, so
   * one word's counts are adjacent and are summed as they stream by.
   */
  public static final class CountReducer implements Reducer {
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
