package dev.tide.bench.sparkcompare;

import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.streaming.Durations;
import org.apache.spark.streaming.api.java.JavaStreamingContext;
import org.apache.spark.streaming.scheduler.BatchInfo;
import org.apache.spark.streaming.scheduler.StreamingListener;
import org.apache.spark.streaming.scheduler.StreamingListenerBatchCompleted;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * Spark's side of workload e, as Tide's {@code stream-rate} computes it: {@code SparkRateStream
 * <output> <intervalSeconds> <stopAfterSeconds> <schedule> <costMicros> <splits>}, where the
 * schedule is {@code rate@seconds,...} (records per second from that second on). Batch {@code i}
 * (a DStream of one queued RDD per batch) holds the next {@code rate x interval} ids, split into
 * {@code splits} ranges; each map task sleeps the ids' cost (as {@code
 * tide.streaming.rate.spin=false}), one reduce task merges the batch's ranges and writes
 * {@code first<TAB>endExclusive} lines to {@code output/batch-<time>/part-00000}. A streaming
 * listener writes {@code output/batches}: {@code time<TAB>records<TAB>processingMs<TAB>
 * schedulingDelayMs} per completed batch.
 */
public final class SparkRateStream {
  private SparkRateStream() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException("usage: SparkRateStream <output> <intervalSeconds>"
          + " <stopAfterSeconds> <rate@seconds,...> <costMicros> <splits>");
    }
    String output = args[0];
    long interval = Long.parseLong(args[1]);
    long stopAfter = Long.parseLong(args[2]);
    List<long[]> schedule = new ArrayList<>();
    for (String step : args[3].split(",")) {
      String[] p = step.split("@");
      schedule.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[0])});
    }
    long cost = Long.parseLong(args[4]);
    int splits = Integer.parseInt(args[5]);
    JavaStreamingContext ssc = new JavaStreamingContext(
        new SparkConf().setAppName("stream-rate"), Durations.seconds(interval));
    JavaSparkContext sc = ssc.sparkContext();
    SerializableConfiguration conf = new SerializableConfiguration(sc.hadoopConfiguration());
    Queue<JavaRDD<long[]>> batches = new LinkedList<>();
    long next = 0;
    for (long t = 0; t < stopAfter + 4 * interval; t += interval) {
      long rate = 0;
      for (long[] s : schedule) {
        if (t >= s[0]) {
          rate = s[1];
        }
      }
      long records = rate * interval;
      List<long[]> ranges = new ArrayList<>();
      for (int i = 0; i < splits; i++) {
        long count = records / splits + (i < records % splits ? 1 : 0);
        ranges.add(new long[] {next, count});
        next += count;
      }
      batches.add(sc.parallelize(ranges, splits));
    }
    Queue<String> completed = new ConcurrentLinkedQueue<>();
    ssc.addStreamingListener(new StreamingListener() {
      @Override
      public void onBatchCompleted(StreamingListenerBatchCompleted batch) {
        BatchInfo info = batch.batchInfo();
        completed.add(info.batchTime().milliseconds() + "\t" + info.numRecords() + "\t"
            + info.processingDelay().get() + "\t" + info.schedulingDelay().get());
      }
    });
    ssc.queueStream(batches, true).mapToPair(range -> {
      TimeUnit.MICROSECONDS.sleep(cost * range[1]);
      return new Tuple2<>(range[0], range[1]);
    }).transformToPair(rdd -> rdd.partitionBy(new HashPartitioner(1))).foreachRDD((rdd, time) -> {
      rdd.foreachPartition(records -> {
        List<long[]> ranges = new ArrayList<>();
        records.forEachRemaining(r -> ranges.add(new long[] {r._1(), r._2()}));
        Collections.sort(ranges, (a, b) -> Long.compare(a[0], b[0]));
        Path part = new Path(output + "/batch-" + time.milliseconds(), "part-00000");
        try (OutputStream raw = part.getFileSystem(conf.value()).create(part, true);
            Writer out = new OutputStreamWriter(raw, StandardCharsets.UTF_8)) {
          long first = -1;
          long end = -1;
          for (long[] r : ranges) {
            if (r[1] == 0) {
              continue;
            }
            if (r[0] != end) {
              if (first >= 0) {
                out.write(first + "\t" + end + "\n");
              }
              first = r[0];
            }
            end = r[0] + r[1];
          }
          if (first >= 0) {
            out.write(first + "\t" + end + "\n");
          }
        }
      });
    });
    ssc.start();
    ssc.awaitTerminationOrTimeout(stopAfter * 1000);
    ssc.stop(true, true);
    Path file = new Path(output, "batches");
    FileSystem fs = file.getFileSystem(sc.hadoopConfiguration());
    try (Writer w = new OutputStreamWriter(fs.create(file, true), StandardCharsets.UTF_8)) {
      for (String line : completed) {
        w.write(line + "\n");
      }
    }
  }
}
