package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.KeyValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** k-means rounds run as plans, checked against Lloyd's algorithm computed here directly. */
class KMeansJobTest {
  @TempDir
  Path dir;

  private final Configuration conf = new Configuration();

  /** Points around three centres, written into two files; returns them in file order. */
  private List<double[]> writePoints(Path in) throws Exception {
    Files.createDirectories(in);
    SplittableRandom random = new SplittableRandom(42);
    double[][] around = {{0, 0}, {10, 10}, {-8, 6}};
    List<double[]> points = new ArrayList<>();
    StringBuilder[] files = {new StringBuilder(), new StringBuilder()};
    for (int i = 0; i < 90; i++) {
      double[] c = around[i % 3];
      double[] p = {c[0] + random.nextDouble(-1, 1), c[1] + random.nextDouble(-1, 1)};
      points.add(p);
      // Both separators and blank lines: the input format allows them.
      files[i < 50 ? 0 : 1].append(i % 2 == 0 ? p[0] + "," + p[1] : " " + p[0] + "  " + p[1])
          .append(i % 10 == 0 ? "\n\n" : "\n");
    }
    Files.writeString(in.resolve("a.txt"), files[0]);
    Files.writeString(in.resolve("b.txt"), files[1]);
    return points;
  }

  /** Lloyd's algorithm from the first k points: ties to the lower centre, empty centres stay. */
  private static double[][] lloyd(List<double[]> points, int k, int rounds) {
    double[][] centres = new double[k][];
    for (int c = 0; c < k; c++) {
      centres[c] = points.get(c).clone();
    }
    for (int r = 0; r < rounds; r++) {
      double[][] sums = new double[k][3];
      for (double[] p : points) {
        int best = 0;
        for (int c = 1; c < k; c++) {
          if (distance(p, centres[c]) < distance(p, centres[best])) {
            best = c;
          }
        }
        sums[best][0] += 1;
        sums[best][1] += p[0];
        sums[best][2] += p[1];
      }
      for (int c = 0; c < k; c++) {
        if (sums[c][0] > 0) {
          centres[c] = new double[] {sums[c][1] / sums[c][0], sums[c][2] / sums[c][0]};
        }
      }
    }
    return centres;
  }

  private static double distance(double[] a, double[] b) {
    double dx = a[0] - b[0];
    double dy = a[1] - b[1];
    return dx * dx + dy * dy;
  }

  @ParameterizedTest(name = "k {0}, {1} rounds")
  @CsvSource({"3, 1", "3, 4", "2, 3"})
  void theOutputHoldsTheCentresOfLloydsAlgorithm(int k, int rounds) throws Exception {
    Path in = dir.resolve("points");
    List<double[]> points = writePoints(in);
    String output = dir.resolve("centres").toString();
    LocalPlanRunner runner = new LocalPlanRunner(conf, List.of(in.toString(),
        Integer.toString(k), Integer.toString(rounds), output));

    new KMeansJob().run(runner.session());

    double[][] expected = lloyd(points, k, rounds);
    List<String> lines = Files.readAllLines(Path.of(output, "part-r-00000"));
    assertEquals(k, lines.size());
    for (int c = 0; c < k; c++) {
      String[] fields = lines.get(c).split("\t");
      assertEquals(Integer.toString(c), fields[0]);
      assertArrayEquals(expected[c], KMeansJob.parse(fields[1]), 1e-9, "centre " + c);
    }
    assertEquals(rounds, runner.plansRun(), "one plan per round");
    for (int r = 1; r < rounds; r++) {
      assertFalse(Files.exists(Path.of(output + ".round-" + r)), "round " + r
          + "'s output is deleted once read");
    }
  }

  @Test
  void theFirstDistinctPointsAreTheInitialCentres() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    Files.writeString(in.resolve("a"), "1,1\n1 1\n\n2,2\n");
    Files.writeString(in.resolve("b"), "1,1\n3,3\n4,4\n");

    double[][] centres = KMeansJob.initialCentres(conf, in.toString(), 3);

    assertArrayEquals(new double[][] {{1, 1}, {2, 2}, {3, 3}}, centres);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KMeansJob.initialCentres(conf, in.toString(), 5));
    assertEquals("kmeans: the input has 4 distinct points, fewer than k = 5", e.getMessage());
  }

  @Test
  void aCentreThatGetsNoPointsKeepsItsPlace() throws Exception {
    double[][] centres = {{0, 0}, {100, 100}};
    KMeansJob.UpdateReducer reducer = new KMeansJob.UpdateReducer();
    reducer.configure(new JobContext(conf, List.of(), KMeansJob.encode(centres)));
    byte[] key0 = ByteBuffer.allocate(4).putInt(0).array();
    List<KeyValue> records = List.of(
        new KeyValue(key0, KMeansJob.encodeVector(new double[] {1, 2, 4})),
        new KeyValue(key0, KMeansJob.encodeVector(new double[] {3, 4, 2})));
    ByteArrayOutputStream file = new ByteArrayOutputStream();

    reducer.reduce(0, records.iterator(), LocalPlanRunner.into(file));

    assertEquals("0\t1.5,1.5\n1\t100.0,100.0\n", file.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aPointGoesToTheNearestCentreAndATieToTheLowerIndex() {
    double[][] centres = {{0, 0}, {2, 0}, {1, 5}};
    assertEquals(1, KMeansJob.nearest(centres, new double[] {1.9, 0.5}));
    assertEquals(0, KMeansJob.nearest(centres, new double[] {1, 0}));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KMeansJob.nearest(centres, new double[] {1, 0, 0}));
    assertEquals("kmeans: a point has 3 coordinates, the centres 2", e.getMessage());
  }

  @Test
  void pointsAreNumbersSeparatedByCommasOrSpacesAndBlankLinesAreSkipped() {
    assertArrayEquals(new double[] {1.5, -2, 3e2}, KMeansJob.parse(" 1.5, -2\t 3e2 "));
    assertNull(KMeansJob.parse("   "));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KMeansJob.parse("1,two"));
    assertEquals("kmeans: '1,two' is not a point (numbers separated by commas or spaces)",
        e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "in 0 3 out | kmeans: k must be a whole number >= 1, got '0'",
      "in 2 x out | kmeans: iterations must be a whole number >= 1, got 'x'",
      "in 2 -1 out | kmeans: iterations must be a whole number >= 1, got '-1'",
      "in 2 3 | usage: kmeans <input path> <k> <iterations> <output path>"})
  void badArgumentsAreRejectedNamingTheArgument(String args, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new KMeansJob().checkArguments(new JobContext(conf,
            List.of(args.split(" ")))));
    assertEquals(message, e.getMessage());
  }

  @Test
  void theModelSurvivesItsEncoding() {
    double[][] centres = {{1.25, -3}, {Double.MAX_VALUE, 0.1}};
    assertArrayEquals(centres, KMeansJob.decode(KMeansJob.encode(centres)));
    assertArrayEquals(new double[] {1, -2.5}, KMeansJob.decodeVector(KMeansJob.encodeVector(
        new double[] {1, -2.5})));
  }
}
