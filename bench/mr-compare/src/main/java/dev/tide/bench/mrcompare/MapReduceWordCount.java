package dev.tide.bench.mrcompare;

import dev.tide.it.WordCountOutput;
import java.io.PrintStream;
import java.time.Duration;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * MapReduce's WordCount from hadoop-mapreduce-examples: its {@code TokenizerMapper}, its
 * {@code IntSumReducer} as combiner and reducer, set up as its {@code main} does (which cannot
 * be called here: it exits the JVM). One map task per input file (each is one block).
 */
final class MapReduceWordCount {
  private static final long POLL_MILLIS = 250; // as Tide's client polls in this cluster

  private final SideBySideCluster cluster;
  private final YarnClient yarn;
  private final PrintStream log;

  MapReduceWordCount(SideBySideCluster cluster, YarnClient yarn, PrintStream log) {
    this.cluster = cluster;
    this.yarn = yarn;
    this.log = log;
  }

  EngineRun run(long size, GrowingInput input, String output, Duration timeout) throws Exception {
    long inputBytes = input.bytes();
    long start = System.nanoTime();
    Job job = Job.getInstance(cluster.mapReduceConf(), "word count");
    job.setMapperClass(WordCount.TokenizerMapper.class);
    job.setCombinerClass(WordCount.IntSumReducer.class);
    job.setReducerClass(WordCount.IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    FileInputFormat.addInputPath(job, input.dir());
    FileOutputFormat.setOutputPath(job, new Path(output));
    job.submit();
    ApplicationId appId = TypeConverter.toYarn(job.getJobID()).getAppId();
    log.println(appId + " submitted (MapReduce " + job.getJobID() + ")");
    // Wall time ends where Tide's client ends it: the RM reports the application ended.
    long deadline = start + timeout.toNanos();
    while (!ApplicationUsage.ended(yarn, appId)) {
      if (System.nanoTime() > deadline) {
        yarn.killApplication(appId);
        throw new IllegalStateException("MapReduce " + appId + " not done after " + timeout
            + "; killed");
      }
      Thread.sleep(POLL_MILLIS);
    }
    long wallMillis = (System.nanoTime() - start) / 1_000_000;
    ApplicationUsage usage = ApplicationUsage.awaitEnd(yarn, appId, timeout);
    log.println(appId + " ended: " + usage);
    String check = !usage.succeeded() ? "application " + usage.finalStatus()
        : EngineRun.compare(input.expectedCounts(),
            WordCountOutput.read(cluster.fileSystem(), output));
    return new EngineRun("MapReduce", size, inputBytes, appId.toString(), wallMillis, usage, check);
  }
}
