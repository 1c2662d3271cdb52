package dev.tide.bench.sparkcompare;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.input.FileRangeSplits;
import dev.tide.input.LineRanges;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Tide's side of workload d ({@link InteractiveShape}): one application whose driver runs bursts
 * of small wordcount plans with idle gaps. With {@code expectLeadSeconds > 0} the session
 * announces each later burst that long before it ({@link JobSession#expect}), as an interactive
 * front end that knows its next burst would.
 */
public final class TideInteractive implements TideJob {
  @Override
  public void checkArguments(JobContext context) {
    InteractiveShape.parse(context.args());
  }

  @Override
  public void run(JobSession session) throws Exception {
    JobContext context = session.context();
    InteractiveShape shape = InteractiveShape.parse(context.args());
    List<InputSplit> splits = FileRangeSplits.plan(context.conf(), shape.input(), 0);
    StringBuilder latencies = new StringBuilder();
    for (int burst = 0; burst < shape.bursts(); burst++) {
      if (burst > 0) {
        long lead = Math.min(shape.expectLeadMillis(), shape.gapMillis());
        Thread.sleep(shape.gapMillis() - lead);
        if (lead > 0) {
          session.expect(splits.size(), Duration.ofMillis(lead));
          Thread.sleep(lead);
        }
      }
      for (int job = 0; job < shape.jobs(); job++) {
        long start = System.nanoTime();
        session.run(JobPlan.mapReduce("burst " + burst + " job " + job, splits,
            WordMapper.class, SumReducer.class, 2, shape.jobOutput(burst, job)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        latencies.append(burst).append('\t').append(job).append('\t').append(ms).append('\n');
      }
    }
    Path file = new Path(shape.output(), "latencies");
    FileSystem fs = file.getFileSystem(context.conf());
    try (Writer w = new OutputStreamWriter(fs.create(file, true), StandardCharsets.UTF_8)) {
      w.write(latencies.toString());
    }
  }

  /** Counts the words of its split (whitespace-separated) and emits (word, count). */
  public static final class WordMapper implements Mapper {
    private JobContext context;

    @Override
    public void configure(JobContext context) {
      this.context = context;
    }

    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      Map<String, long[]> counts = new HashMap<>();
      LineRanges.forEachLine(context.conf(), FileRangeSplits.decode(split.payload()), line -> {
        for (String word : line.split("\\s+")) {
          if (!word.isEmpty()) {
            counts.computeIfAbsent(word, w -> new long[1])[0]++;
          }
        }
      });
      for (Map.Entry<String, long[]> e : counts.entrySet()) {
        output.emit(e.getKey().getBytes(StandardCharsets.UTF_8),
            ByteBuffer.allocate(8).putLong(e.getValue()[0]).array());
      }
    }
  }

  /** Sums each word's counts and writes {@code word<TAB>count} lines. */
  public static final class SumReducer implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      try (OutputStream raw = output.open();
          Writer out = new OutputStreamWriter(raw, StandardCharsets.UTF_8)) {
        byte[] word = null;
        long sum = 0;
        while (records.hasNext()) {
          KeyValue kv = records.next();
          if (word != null && !java.util.Arrays.equals(word, kv.key())) {
            out.write(new String(word, StandardCharsets.UTF_8) + "\t" + sum + "\n");
            sum = 0;
          }
          word = kv.key();
          sum += ByteBuffer.wrap(kv.value()).getLong();
        }
        if (word != null) {
          out.write(new String(word, StandardCharsets.UTF_8) + "\t" + sum + "\n");
        }
      }
    }
  }
}
