package dev.tide.bench.sparkcompare;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * Spark's side of workload c: {@code SparkKMeans <input> <k> <iterations> <output>}, Lloyd's
 * k-means as Tide's built-in {@code kmeans} computes it: the first {@code k} distinct points of
 * the input's files (by path) start it, a point goes to its nearest centre (ties to the lower
 * index), a centre with no points stays. The parsed points are cached in memory
 * ({@code MEMORY_ONLY}, Spark's RDD cache); each round sums per centre with
 * {@code reduceByKey} and collects the new centres in the driver. Writes
 * {@code index<TAB>x,y,...} lines to {@code output/part-00000}.
 */
public final class SparkKMeans {
  private SparkKMeans() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      throw new IllegalArgumentException("usage: SparkKMeans <input> <k> <iterations> <output>");
    }
    int k = Integer.parseInt(args[1]);
    int iterations = Integer.parseInt(args[2]);
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("kmeans"))) {
      FileSystem fs = new Path(args[0]).getFileSystem(sc.hadoopConfiguration());
      double[][] centres = initialCentres(fs, new Path(args[0]), k);
      JavaRDD<double[]> points = sc.textFile(args[0]).map(SparkKMeans::parse)
          .filter(p -> p != null).persist(StorageLevel.MEMORY_ONLY());
      for (int round = 0; round < iterations; round++) {
        double[][] model = centres;
        Map<Integer, double[]> sums = points
            .mapToPair(p -> new Tuple2<>(nearest(model, p), withCount(p)))
            .reduceByKey(SparkKMeans::add, 1)
            .collectAsMap();
        double[][] next = new double[k][];
        for (int c = 0; c < k; c++) {
          double[] s = sums.get(c);
          if (s == null) {
            next[c] = centres[c];
            continue;
          }
          next[c] = new double[s.length - 1];
          for (int d = 0; d < next[c].length; d++) {
            next[c][d] = s[d] / s[s.length - 1];
          }
        }
        centres = next;
      }
      Path out = new Path(args[3], "part-00000");
      try (Writer w = new OutputStreamWriter(fs.create(out, false), StandardCharsets.UTF_8)) {
        for (int c = 0; c < k; c++) {
          StringBuilder line = new StringBuilder().append(c).append('\t');
          for (int d = 0; d < centres[c].length; d++) {
            line.append(d == 0 ? "" : ",").append(centres[c][d]);
          }
          w.write(line.append('\n').toString());
        }
      }
      fs.create(new Path(args[3], "_SUCCESS"), true).close();
    }
  }

  static double[] parse(String line) {
    String t = line.trim();
    if (t.isEmpty()) {
      return null;
    }
    return Arrays.stream(t.split("[,\\s]+")).mapToDouble(Double::parseDouble).toArray();
  }

  static int nearest(double[][] centres, double[] p) {
    int best = 0;
    double bestDistance = Double.MAX_VALUE;
    for (int c = 0; c < centres.length; c++) {
      double d = 0;
      for (int i = 0; i < p.length; i++) {
        double x = p[i] - centres[c][i];
        d += x * x;
      }
      if (d < bestDistance) {
        bestDistance = d;
        best = c;
      }
    }
    return best;
  }

  static double[] withCount(double[] p) {
    double[] v = Arrays.copyOf(p, p.length + 1);
    v[p.length] = 1;
    return v;
  }

  static double[] add(double[] a, double[] b) {
    double[] s = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      s[i] = a[i] + b[i];
    }
    return s;
  }

  static double[][] initialCentres(FileSystem fs, Path input, int k) throws Exception {
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus s : fs.listStatus(input)) {
      String name = s.getPath().getName();
      if (s.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
        files.add(s);
      }
    }
    files.sort((a, b) -> a.getPath().compareTo(b.getPath()));
    Set<List<Double>> distinct = new LinkedHashSet<>();
    for (FileStatus file : files) {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(fs.open(file.getPath()), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null && distinct.size() < k;
            line = in.readLine()) {
          double[] p = parse(line);
          if (p != null) {
            distinct.add(Arrays.stream(p).boxed().toList());
          }
        }
      }
      if (distinct.size() == k) {
        break;
      }
    }
    return distinct.stream().map(p -> p.stream().mapToDouble(Double::doubleValue).toArray())
        .toArray(double[][]::new);
  }
}
