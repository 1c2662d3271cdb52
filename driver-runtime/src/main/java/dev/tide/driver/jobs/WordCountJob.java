package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Record;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code wordcount <input> <output>}: counts whitespace-separated words of the text files under
 * {@code input} (any Hadoop FileSystem) and writes {@code word<TAB>count} lines, sorted by word,
 * to {@code output/part-r-NNNNN}. Settings: {@code tide.wordcount.reducers} (2),
 * {@code tide.wordcount.splitSize} (bytes; 0 = one split per block); see {@link TideOptions}.
 */
public final class WordCountJob implements TideJob {
  @Override
  public JobPlan plan(JobContext context) throws Exception {
    List<String> args = context.args();
    if (args.size() != 2) {
      throw new IllegalArgumentException("usage: wordcount <input path> <output path>");
    }
    int reducers = TideOptions.WORDCOUNT_REDUCERS.get(context.conf());
    long splitSize = TideOptions.WORDCOUNT_SPLIT_SIZE.get(context.conf());
    List<InputSplit> splits = FileRangeSplits.plan(context.conf(), args.get(0), splitSize);
    return new JobPlan("wordcount", splits, WordCountMapper.class.getName(),
        WordCountReducer.class.getName(), reducers, args.get(1));
  }

  /** Counts the words of one split and emits (word, count) once per distinct word. */
  public static final class WordCountMapper implements Mapper {
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Map<String, Long> counts = new HashMap<>();
      LineRanges.forEachLine(context.conf(), FileRangeSplits.decode(split.payload()), line -> {
        for (String word : line.split("\\s+")) {
          if (!word.isEmpty()) {
            counts.merge(word, 1L, Long::sum);
          }
        }
      });
      counts.forEach((word, count) -> output.emit(word.getBytes(StandardCharsets.UTF_8),
          ByteBuffer.allocate(Long.BYTES).putLong(count).array()));
    }
  }

  /** Sums the counts of each word of one partition. */
  public static final class WordCountReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<Record> records, ReduceOutput output)
        throws Exception {
      Map<String, Long> counts = new TreeMap<>();
      while (records.hasNext()) {
        Record record = records.next();
        counts.merge(new String(record.key(), StandardCharsets.UTF_8),
            ByteBuffer.wrap(record.value()).getLong(), Long::sum);
      }
      try (Writer out = new BufferedWriter(
          new OutputStreamWriter(output.open(), StandardCharsets.UTF_8))) {
        for (Map.Entry<String, Long> entry : counts.entrySet()) {
          out.write(entry.getKey() + "\t" + entry.getValue() + "\n");
        }
      }
    }
  }
}
