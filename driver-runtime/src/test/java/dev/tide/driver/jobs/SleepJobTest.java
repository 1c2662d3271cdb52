package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import dev.tide.driver.job.RecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The synthetic sleep job: its options, and the records its maps spread over the reducers (run
 * with zero sleep times, so nothing waits).
 */
class SleepJobTest {
  private final Configuration conf = new Configuration(false);

  private static List<String> args(String line) {
    return line.isBlank() ? List.of() : List.of(line.trim().split(" +"));
  }

  @Test
  void withoutOptionsOneMapAndOneReduceSleepATenthOfASecondAndShuffleNothing() {
    assertEquals(new SleepJob.Spec(1, 1, 100, 100, 0, 0, ""), SleepJob.Spec.parse(List.of()));
    assertEquals(new SleepJob.Spec(4, 2, 5, 6, 4096, 7, "hdfs:///o"), SleepJob.Spec.parse(
        args("-m 4 -r 2 -mt 5 -rt 6 -b 4096 -rd 7 -o hdfs:///o")));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "-m | sleep: -m needs a value",
      "-m 2 -r | sleep: -r needs a value",
      "-m two | sleep: -m expects a number, got 'two'",
      "-b 1k | sleep: -b expects a number, got '1k'",
      "-m 0 | sleep: counts must be >= 1 and times/bytes >= 0",
      "-rt -1 | sleep: counts must be >= 1 and times/bytes >= 0",
      "-x 1 | sleep: unknown option -x; usage: sleep [-m maps] [-r reduces] [-mt ms] [-rt ms]"
          + " [-b bytesPerMap] [-rd reduceFetchDelayMs] [-o output]"})
  void badOptionsAreRejectedSayingWhichAndWhy(String line, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SleepJob().checkArguments(new JobContext(conf, args(line))));
    assertEquals(message, e.getMessage());
  }

  @ParameterizedTest(name = "{0} bytes over {1} reducers: {2} records each")
  @CsvSource({"0, 3, 0", "3, 3, 1", "3072, 3, 1", "3075, 3, 2", "10240, 1, 10"})
  void eachMapSendsEachReducerItsShareOfTheBytesInWholeRecords(long bytes, int reduces,
      int records) {
    assertEquals(records, new SleepJob.Spec(1, reduces, 0, 0, bytes, 0, "")
        .recordsPerMapPerReduce());
  }

  @Test
  void everyReducerReceivesItsShareFromEveryMapAndReportsIt() throws Exception {
    LocalPlanRunner runner = new LocalPlanRunner(conf,
        args("-m 3 -r 4 -mt 0 -rt 0 -b 8192 -o out"));
    JobPlan plan = new SleepJob().plan(runner.context());
    assertEquals(3, plan.stage(0).tasks());
    assertEquals(4, plan.last().tasks());

    Map<String, byte[]> parts = runner.run(plan);

    assertEquals(4, parts.size());
    for (int p = 0; p < 4; p++) {
      String line = new String(parts.get(String.format("part-r-%05d", p)),
          StandardCharsets.UTF_8);
      // 8192 / 4 = 2048 bytes per reducer and map: 2 records of 1024 bytes, from 3 maps.
      assertEquals("partition " + p + " records 6", line.substring(0,
          line.indexOf(" bytes")));
      long bytes = Long.parseLong(line.trim().substring(line.indexOf(" bytes ") + 7));
      assertEquals(6 * (SleepJob.RECORD_BYTES - 16), bytes - keyBytes(p, 4, 3, 2));
    }
  }

  /** The bytes of the keys reducer {@code p} gets: each key of the job lands in its reducer. */
  private static long keyBytes(int p, int reduces, int maps, int perMap) {
    long bytes = 0;
    for (int m = 0; m < maps; m++) {
      for (int k = 0; k < perMap; k++) {
        byte[] key = SleepJob.SleepReducer.keyFor(p, reduces, m, k);
        assertEquals(p, RecordCodec.partition(key, reduces));
        bytes += key.length;
      }
    }
    return bytes;
  }

  @Test
  void withoutAnOutputTheJobWritesNothing() throws Exception {
    LocalPlanRunner runner = new LocalPlanRunner(conf, args("-m 2 -r 2 -mt 0 -rt 0 -b 100"));
    JobPlan plan = new SleepJob().plan(runner.context());

    assertEquals("", plan.outputPath());
    assertEquals(Map.of(), runner.run(plan));
  }

  @Test
  void aReducerThatMissesRecordsFails() throws Exception {
    SleepJob.SleepReducer reducer = new SleepJob.SleepReducer();
    reducer.configure(new JobContext(conf, args("-m 2 -r 1 -rt 0 -b 2048")));
    Iterator<KeyValue> one = List.of(new KeyValue(new byte[1], new byte[1])).iterator();

    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> reducer.reduce(0, one, null));
    assertEquals("partition 0 received 1 records, expected 4", e.getMessage());
  }
}
