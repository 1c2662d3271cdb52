package dev.tide.bench.sparkcompare;

import java.util.Arrays;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * Spark's side of workload a: {@code SparkWordCount <input> <output> <reducers>}. Splits lines on
 * whitespace as Tide's {@code wordcount} does, sums with {@code reduceByKey} (a map-side
 * combine, as Tide's combiner) into {@code reducers} partitions, and writes
 * {@code word<TAB>count} lines.
 */
public final class SparkWordCount {
  private SparkWordCount() {}

  public static void main(String[] args) {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: SparkWordCount <input> <output> <reducers>");
    }
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("wordcount"))) {
      sc.textFile(args[0])
          .flatMap(line -> Arrays.stream(line.split("\\s+")).filter(w -> !w.isEmpty()).iterator())
          .mapToPair(word -> new Tuple2<>(word, 1L))
          .reduceByKey(Long::sum, Integer.parseInt(args[2]))
          .map(pair -> pair._1() + "\t" + pair._2())
          .saveAsTextFile(args[1]);
    }
  }
}
