package dev.tide.driver.jobs;

import dev.tide.driver.job.Combiner;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.Mapper;
import dev.tide.driver.job.RecordMapper;
import dev.tide.driver.job.Reducer;
import dev.tide.driver.job.TideJob;
import dev.tide.input.FileRangeSplits;
import dev.tide.input.LineRanges;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code kmeans <input> <k> <iterations> <output>}: Lloyd's k-means over the points of the text
 * files under {@code input} (one point per line, coordinates separated by commas or spaces),
 * starting from the first {@code k} distinct points of the input, for {@code iterations} rounds.
 * The points are a cached dataset: the first round reads and parses them and each executor keeps
 * its blocks in memory ({@code tide.cache.memory}); later rounds run where the blocks are and read
 * them from there (a block lost with its executor is read again from its split). Each round is a
 * plan: assign every point to its nearest centre (ties to the lower index), summed per centre by
 * a combiner; one reducer computes the new centres (a centre with no points stays). Rounds before
 * the last write under {@code <output>.round-N} (read by the driver, then deleted); the last
 * writes {@code output/part-r-00000}: {@code index<TAB>x,y,...} per centre.
 */
public final class KMeansJob implements TideJob {
  private static final Pattern SEPARATOR = Pattern.compile("[,\\s]+");

  @Override
  public void checkArguments(JobContext context) {
    List<String> args = context.args();
    if (args.size() != 4) {
      throw new IllegalArgumentException("usage: kmeans <input path> <k> <iterations>"
          + " <output path>");
    }
    positive(args.get(1), "k");
    positive(args.get(2), "iterations");
  }

  @Override
  public void checkPaths(JobContext context) throws IOException {
    JobPaths.requireInput(context.conf(), context.args().get(0));
    JobPaths.requireNewOutput(context.conf(), context.args().get(3));
  }

  @Override
  public void run(JobSession session) throws Exception {
    JobContext context = session.context();
    checkArguments(context);
    List<String> args = context.args();
    int k = positive(args.get(1), "k");
    int iterations = positive(args.get(2), "iterations");
    String output = args.get(3);
    Configuration conf = context.conf();
    List<InputSplit> splits = FileRangeSplits.plan(conf, args.get(0), 0);
    double[][] centres = initialCentres(conf, args.get(0), k);
    JobPlan.Dataset points = JobPlan.Dataset.of("points", splits, PointMapper.class).cache();
    for (int round = 1; round <= iterations; round++) {
      boolean last = round == iterations;
      String roundOutput = last ? output : output + ".round-" + round;
      JobPlan.Builder plan = JobPlan.builder("kmeans round " + round);
      byte[] model = encode(centres);
      JobPlan.Stage assign = plan.input("assign", points, AssignMapper.class, model);
      JobPlan.Stage update = plan.withSpec(plan.shuffle("update", 1, UpdateReducer.class,
          assign), model);
      session.run(plan.output(update, roundOutput));
      if (!last) {
        centres = readCentres(conf, roundOutput, k);
        Path dir = new Path(roundOutput);
        dir.getFileSystem(conf).delete(dir, true);
      }
    }
  }

  private static int positive(String value, String name) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("kmeans: " + name + " must be a whole number >= 1, got '"
        + value + "'");
  }

  /** The first {@code k} distinct points of the input's files, in file order. */
  static double[][] initialCentres(Configuration conf, String input, int k) throws IOException {
    Set<List<Double>> distinct = new LinkedHashSet<>();
    FileSystem fs = new Path(input).getFileSystem(conf);
    for (FileStatus file : FileRangeSplits.inputFiles(conf, input)) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(
          fs.open(file.getPath()), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null && distinct.size() < k;
            line = in.readLine()) {
          double[] point = parse(line);
          if (point != null) {
            distinct.add(Arrays.stream(point).boxed().toList());
          }
        }
      }
      if (distinct.size() == k) {
        break;
      }
    }
    if (distinct.size() < k) {
      throw new IllegalArgumentException("kmeans: the input has " + distinct.size()
          + " distinct points, fewer than k = " + k);
    }
    double[][] centres = new double[k][];
    int i = 0;
    for (List<Double> p : distinct) {
      centres[i++] = p.stream().mapToDouble(Double::doubleValue).toArray();
    }
    return centres;
  }

  /** A point's coordinates, or null for a blank line. */
  static double[] parse(String line) {
    String trimmed = line.trim();
    if (trimmed.isEmpty()) {
      return null;
    }
    String[] parts = SEPARATOR.split(trimmed);
    double[] point = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        point[i] = Double.parseDouble(parts[i]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("kmeans: '" + line + "' is not a point (numbers"
            + " separated by commas or spaces)");
      }
    }
    return point;
  }

  static double[][] readCentres(Configuration conf, String dir, int k) throws IOException {
    double[][] centres = new double[k][];
    Path file = new Path(dir, "part-r-00000");
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        file.getFileSystem(conf).open(file), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] fields = line.split("\t");
        centres[Integer.parseInt(fields[0])] = parse(fields[1]);
      }
    }
    return centres;
  }

  static byte[] encode(double[][] centres) {
    ByteBuffer out = ByteBuffer.allocate(8 + centres.length * centres[0].length * 8);
    out.putInt(centres.length).putInt(centres[0].length);
    for (double[] c : centres) {
      for (double x : c) {
        out.putDouble(x);
      }
    }
    return out.array();
  }

  static double[][] decode(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    double[][] centres = new double[in.getInt()][in.getInt()];
    for (double[] c : centres) {
      for (int d = 0; d < c.length; d++) {
        c[d] = in.getDouble();
      }
    }
    return centres;
  }

  static byte[] encodeVector(double[] v) {
    ByteBuffer out = ByteBuffer.allocate(v.length * 8);
    for (double x : v) {
      out.putDouble(x);
    }
    return out.array();
  }

  static double[] decodeVector(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    double[] v = new double[bytes.length / 8];
    for (int i = 0; i < v.length; i++) {
      v[i] = in.getDouble();
    }
    return v;
  }

  /** The index of the centre nearest to {@code point}; ties go to the lower index. */
  static int nearest(double[][] centres, double[] point) {
    int best = 0;
    double bestDistance = Double.MAX_VALUE;
    for (int c = 0; c < centres.length; c++) {
      if (centres[c].length != point.length) {
        throw new IllegalArgumentException("kmeans: a point has " + point.length
            + " coordinates, the centres " + centres[c].length);
      }
      double d = 0;
      for (int i = 0; i < point.length; i++) {
        double diff = point[i] - centres[c][i];
        d += diff * diff;
      }
      if (d < bestDistance) {
        bestDistance = d;
        best = c;
      }
    }
    return best;
  }

  /** Parses one line range's points: (empty key, coordinates). */
  public static final class PointMapper extends ConfiguredMapper {
    @Override
    public void map(InputSplit split, MapOutput output) throws Exception {
      IOException[] failed = new IOException[1];
      LineRanges.forEachLine(context.conf(), FileRangeSplits.decode(split.payload()), line -> {
        double[] point = parse(line);
        if (point != null && failed[0] == null) {
          try {
            output.emit(new byte[0], encodeVector(point));
          } catch (IOException e) {
            failed[0] = e;
          }
        }
      });
      if (failed[0] != null) {
        throw failed[0];
      }
    }
  }

  /** Emits (nearest centre, [1, coordinates...]) per point. */
  public static final class AssignMapper implements RecordMapper {
    private double[][] centres;

    @Override
    public void configure(JobContext context) {
      centres = decode(context.spec());
    }

    @Override
    public void map(KeyValue record, Mapper.MapOutput output) throws Exception {
      double[] point = decodeVector(record.value());
      double[] sum = new double[point.length + 1];
      sum[0] = 1;
      System.arraycopy(point, 0, sum, 1, point.length);
      output.emit(ByteBuffer.allocate(4).putInt(nearest(centres, point)).array(),
          encodeVector(sum));
    }

    @Override
    public Combiner combiner() {
      return new VectorSum();
    }
  }

  /** Adds vectors of equal length. */
  public static final class VectorSum implements Combiner {
    @Override
    public byte[] combine(byte[] key, Iterator<byte[]> values) {
      double[] sum = null;
      while (values.hasNext()) {
        double[] v = decodeVector(values.next());
        if (sum == null) {
          sum = v;
        } else {
          for (int i = 0; i < v.length; i++) {
            sum[i] += v[i];
          }
        }
      }
      return encodeVector(sum);
    }
  }

  /** Writes {@code index<TAB>x,y,...} for every centre: the mean of its points, or unchanged. */
  public static final class UpdateReducer implements Reducer {
    private double[][] centres;

    @Override
    public void configure(JobContext context) {
      centres = decode(context.spec());
    }

    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output)
        throws Exception {
      double[][] next = new double[centres.length][];
      List<byte[]> group = new ArrayList<>();
      byte[] key = null;
      while (true) {
        KeyValue r = records.hasNext() ? records.next() : null;
        if (key != null && (r == null || !Arrays.equals(key, r.key()))) {
          double[] sum = decodeVector(new VectorSum().combine(key, group.iterator()));
          double[] mean = new double[sum.length - 1];
          for (int i = 0; i < mean.length; i++) {
            mean[i] = sum[i + 1] / sum[0];
          }
          next[ByteBuffer.wrap(key).getInt()] = mean;
          group.clear();
        }
        if (r == null) {
          break;
        }
        key = r.key();
        group.add(r.value());
      }
      try (Writer out = new OutputStreamWriter(output.open(), StandardCharsets.UTF_8)) {
        for (int c = 0; c < centres.length; c++) {
          double[] centre = next[c] != null ? next[c] : centres[c];
          StringBuilder line = new StringBuilder().append(c).append('\t');
          for (int i = 0; i < centre.length; i++) {
            line.append(i == 0 ? "" : ",").append(centre[i]);
          }
          out.write(line.append('\n').toString());
        }
      }
    }
  }
}
