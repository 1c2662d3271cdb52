package dev.tide.bench.sparkcompare;

import java.io.OutputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * Spark's side of workload b: {@code SparkSort <input> <output> <partitions>} sorts TeraGen-format
 * records (100 bytes, the first 10 the key) with {@code sortByKey} (Spark samples the keys and
 * range-partitions, as Tide's {@code sort} and TeraSort do) and writes each partition's records,
 * raw, to {@code output/part-NNNNN}, then {@code _SUCCESS}.
 */
public final class SparkSort {
  static final int RECORD = 100;
  static final int KEY = 10;

  private SparkSort() {}

  /** Unsigned lexicographic order of the 10-byte keys, as TeraSort's. */
  static final class KeyOrder implements Comparator<byte[]>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int compare(byte[] a, byte[] b) {
      return Arrays.compareUnsigned(a, b);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: SparkSort <input> <output> <partitions>");
    }
    String output = args[1];
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("sort"))) {
      SerializableConfiguration conf = new SerializableConfiguration(sc.hadoopConfiguration());
      sc.binaryRecords(args[0], RECORD)
          .mapToPair(r -> new Tuple2<>(Arrays.copyOfRange(r, 0, KEY), r))
          .sortByKey(new KeyOrder(), true, Integer.parseInt(args[2]))
          .foreachPartition(records -> {
            Configuration hadoop = conf.value();
            Path part = new Path(output,
                String.format("part-%05d", TaskContext.getPartitionId()));
            FileSystem fs = part.getFileSystem(hadoop);
            try (OutputStream out = fs.create(part, true)) {
              while (records.hasNext()) {
                out.write(records.next()._2());
              }
            }
          });
      Path done = new Path(output, "_SUCCESS");
      done.getFileSystem(sc.hadoopConfiguration()).create(done, true).close();
    }
  }
}
