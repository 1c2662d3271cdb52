package dev.tide.bench.sparkcompare;

import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * Spark's side of workload d ({@link InteractiveShape}): one application, bursts of small
 * wordcount jobs ({@code reduceByKey} into 2 partitions, saved as text) with idle gaps.
 */
public final class SparkInteractive {
  private SparkInteractive() {}

  public static void main(String[] args) throws Exception {
    InteractiveShape shape = InteractiveShape.parse(Arrays.asList(args));
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("interactive"))) {
      StringBuilder latencies = new StringBuilder();
      for (int burst = 0; burst < shape.bursts(); burst++) {
        if (burst > 0) {
          Thread.sleep(shape.gapMillis());
        }
        for (int job = 0; job < shape.jobs(); job++) {
          long start = System.nanoTime();
          sc.textFile(shape.input())
              .flatMap(l -> Arrays.stream(l.split("\\s+")).filter(w -> !w.isEmpty()).iterator())
              .mapToPair(word -> new Tuple2<>(word, 1L))
              .reduceByKey(Long::sum, 2)
              .map(pair -> pair._1() + "\t" + pair._2())
              .saveAsTextFile(shape.jobOutput(burst, job));
          long ms = (System.nanoTime() - start) / 1_000_000;
          latencies.append(burst).append('\t').append(job).append('\t').append(ms).append('\n');
        }
      }
      Path file = new Path(shape.output(), "latencies");
      FileSystem fs = file.getFileSystem(sc.hadoopConfiguration());
      try (Writer w = new OutputStreamWriter(fs.create(file, true), StandardCharsets.UTF_8)) {
        w.write(latencies.toString());
      }
    }
  }
}
