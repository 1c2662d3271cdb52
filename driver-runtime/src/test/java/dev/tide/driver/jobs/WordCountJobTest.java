package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.KeyValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wordcount job's counts, run over local files as executors would run it. */
class WordCountJobTest {
  @TempDir
  Path dir;

  private Path input;
  private final Configuration conf = new Configuration();

  private LocalPlanRunner runner() {
    return new LocalPlanRunner(conf, List.of(input.toUri().toString(),
        dir.resolve("out").toUri().toString()));
  }

  /** Counts of {@code word\tcount} lines of every part; fails if a word is in two parts. */
  private static Map<String, Long> counts(Map<String, byte[]> parts) {
    Map<String, Long> counts = new TreeMap<>();
    for (Map.Entry<String, byte[]> part : parts.entrySet()) {
      String previous = null;
      for (String line : new String(part.getValue(), StandardCharsets.UTF_8).split("\n")) {
        if (line.isEmpty()) {
          continue;
        }
        String[] fields = line.split("\t");
        assertEquals(2, fields.length, "line '" + line + "' of " + part.getKey());
        assertTrue(previous == null || Arrays.compareUnsigned(
            previous.getBytes(StandardCharsets.UTF_8),
            fields[0].getBytes(StandardCharsets.UTF_8)) < 0,
            part.getKey() + " is not sorted by word: " + previous + " before " + fields[0]);
        previous = fields[0];
        Long before = counts.put(fields[0], Long.parseLong(fields[1]));
        assertEquals(null, before, fields[0] + " is counted in more than one part");
      }
    }
    return counts;
  }

  /** The counts computed directly from the text. */
  private static Map<String, Long> expectedCounts(String... texts) {
    Map<String, Long> counts = new TreeMap<>();
    for (String text : texts) {
      for (String word : text.split("\\s+")) {
        if (!word.isEmpty()) {
          counts.merge(word, 1L, Long::sum);
        }
      }
    }
    return counts;
  }

  private static String randomText(long seed, int lines) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      int words = random.nextInt(0, 9);
      for (int w = 0; w < words; w++) {
        text.append(w == 0 ? "" : random.nextBoolean() ? " " : "\t  ")
            .append("w").append(random.nextInt(0, 60));
      }
      text.append('\n');
    }
    return text.toString();
  }

  @ParameterizedTest(name = "split size {0}")
  @ValueSource(longs = {0, 7, 256})
  void countsEveryWordOfEveryFileOnceWhateverTheSplitSize(long splitSize) throws Exception {
    input = Files.createDirectory(dir.resolve("in"));
    String a = randomText(1, 90);
    String b = randomText(2, 40);
    Files.writeString(input.resolve("a.txt"), a);
    Files.writeString(input.resolve("b.txt"), b);
    Files.writeString(input.resolve("_SUCCESS"), "w1 w1 w1\n");
    conf.setLong("tide.wordcount.splitSize", splitSize);
    conf.setInt("tide.wordcount.reducers", 3);
    LocalPlanRunner runner = runner();

    Map<String, byte[]> parts = runner.run(new WordCountJob().plan(runner.context()));

    assertEquals(List.of("part-r-00000", "part-r-00001", "part-r-00002"),
        new ArrayList<>(parts.keySet()));
    assertEquals(expectedCounts(a, b), counts(parts));
  }

  @Test
  void tabsRunsOfSpacesAndNonAsciiWordsAreCountedAsWords() throws Exception {
    input = dir.resolve("one.txt");
    String text = "  der Bär\t\tbär  Bär\n\nnaïve naïve\r\n";
    Files.writeString(input, text, StandardCharsets.UTF_8);
    LocalPlanRunner runner = runner();

    Map<String, Long> counts = counts(runner.run(new WordCountJob().plan(runner.context())));

    assertEquals(Map.of("der", 1L, "Bär", 2L, "bär", 1L, "naïve", 2L), counts);
  }

  /**
   * The mapper folds repeats in a bounded map: a word seen again after the map filled and was
   * emitted is emitted again, and the reducer still adds it up right.
   */
  @Test
  void aSplitWithMoreDistinctWordsThanTheMapperHoldsIsStillCountedRight() throws Exception {
    input = dir.resolve("many.txt");
    int distinct = WordCountJob.WordCountMapper.MAX_DISTINCT_WORDS + 10;
    StringBuilder text = new StringBuilder("first\n");
    for (int i = 0; i < distinct; i++) {
      text.append('u').append(i).append('\n');
    }
    text.append("first first\n");
    Files.writeString(input, text.toString());
    LocalPlanRunner runner = runner();
    JobPlan plan = new WordCountJob().plan(runner.context());

    List<KeyValue> emitted = new ArrayList<>();
    WordCountJob.WordCountMapper mapper = new WordCountJob.WordCountMapper();
    mapper.configure(runner.context());
    for (InputSplit split : plan.stage(0).splits()) {
      mapper.map(split, (k, v) -> emitted.add(new KeyValue(k, v)));
    }
    Map<String, Long> counts = new TreeMap<>();
    long firstRecords = 0;
    for (KeyValue r : emitted) {
      String word = new String(r.key(), StandardCharsets.UTF_8);
      firstRecords += word.equals("first") ? 1 : 0;
      counts.merge(word, ByteBuffer.wrap(r.value()).getLong(), Long::sum);
    }
    assertEquals(2, firstRecords, "'first' is emitted before and after the map is flushed");
    assertEquals(distinct + 1, counts.size());
    assertEquals(3L, counts.get("first"));
  }

  @Test
  void theCombinerAddsCountsHoweverTheyAreGrouped() throws Exception {
    WordCountJob.SumCombiner combiner = new WordCountJob.SumCombiner();
    byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    byte[] all = combiner.combine(key, List.of(WordCountJob.encode(3), WordCountJob.encode(4),
        WordCountJob.encode(5)).iterator());
    byte[] folded = combiner.combine(key, List.of(combiner.combine(key,
        List.of(WordCountJob.encode(3), WordCountJob.encode(4)).iterator()),
        WordCountJob.encode(5)).iterator());
    assertEquals(12, ByteBuffer.wrap(all).getLong());
    assertArrayEquals(all, folded);
  }

  @Test
  void aReducerOfAnEmptyPartitionWritesAnEmptyFile() throws Exception {
    input = dir.resolve("one-word.txt");
    Files.writeString(input, "solo\n");
    conf.setInt("tide.wordcount.reducers", 4);
    LocalPlanRunner runner = runner();

    Map<String, byte[]> parts = runner.run(new WordCountJob().plan(runner.context()));

    assertEquals(4, parts.size());
    assertEquals(3, parts.values().stream().filter(p -> p.length == 0).count());
    assertEquals(Map.of("solo", 1L), counts(parts));
  }

  @Test
  void wrongArgumentsAreRejectedWithTheUsage() {
    JobContext context = new JobContext(conf, List.of("only-input"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new WordCountJob().checkArguments(context));
    assertEquals("usage: wordcount <input path> <output path>; got 1 arguments [only-input]",
        e.getMessage());
  }

  @Test
  void aMissingInputOrAnExistingOutputFailsBeforeSubmission() throws Exception {
    Path missing = dir.resolve("missing");
    Path out = Files.createDirectory(dir.resolve("out"));
    Files.writeString(dir.resolve("text"), "x\n");
    WordCountJob job = new WordCountJob();

    IOException noInput = assertThrows(IOException.class, () -> job.checkPaths(new JobContext(
        conf, List.of(missing.toString(), dir.resolve("new").toString()))));
    assertTrue(noInput.getMessage().contains("input path") && noInput.getMessage()
        .contains(missing.toString()) && noInput.getMessage().contains("does not exist"),
        noInput.getMessage());
    IOException outputExists = assertThrows(IOException.class, () -> job.checkPaths(
        new JobContext(conf, List.of(dir.resolve("text").toString(), out.toString()))));
    assertTrue(outputExists.getMessage().contains(out.toString()), outputExists.getMessage());
  }
}
