package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user's own job, from jars that are on no classpath of Tide's: the examples' StopWordCount
 * (target/user-jobs/, copied there by the build) submitted with {@code --jar}, its text
 * library with {@code -libjars} and its stop words with {@code -files} or {@code -archives},
 * run by real AM and executor containers. The output must be exactly the counts this test
 * computes from the input it wrote.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class UserJobTest {
  private static final Path USER_JOBS = Path.of("target", "user-jobs");
  private static final String JOB_JAR = USER_JOBS.resolve("tide-examples-jobs.jar").toString();
  private static final String TEXT_JAR = USER_JOBS.resolve("tide-examples-text.jar").toString();
  private static final String JOB_CLASS = "dev.tide.examples.StopWordCount";
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{Nd}]+");
  private static final List<String> STOP_WORDS = List.of("the", "a", "and", "of");

  private static EmbeddedCluster cluster;
  private static Path localDir;
  private static Map<String, Long> expected;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SharedCluster.get();
    localDir = Files.createDirectories(Path.of("target", "user-job-files"));
    expected = writeInput(cluster.fileSystem(), "/user-job/in");
  }

  @Test
  void theJobClassIsNotOnTheTestClasspath() {
    assertTrue(Files.isRegularFile(Path.of(JOB_JAR)), "built by the examples module");
    assertThrows(ClassNotFoundException.class, () -> Class.forName(JOB_CLASS));
    assertThrows(ClassNotFoundException.class,
        () -> Class.forName("dev.tide.examples.text.Words"));
  }

  @Test
  void jobFromJarWithLibjarsAndFilesCountsExactly() throws Exception {
    Path stopWords = localDir.resolve("english-stop-words.txt");
    Files.write(stopWords, STOP_WORDS, StandardCharsets.UTF_8);

    JobRun run = Submitter.run(conf(), System.out, "--jar", JOB_JAR, "-libjars", TEXT_JAR,
        "-files", stopWords + "#stopwords.txt", JOB_CLASS, "/user-job/in", "/user-job/out");

    assertEquals(0, run.exitCode(), run.output());
    assertEquals(expected, WordCountOutput.read(cluster.fileSystem(), "/user-job/out"));
  }

  @Test
  void stopWordsFromAnArchiveWithUserClassesFirst() throws Exception {
    Path archive = localDir.resolve("stop-words.zip");
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(archive))) {
      zip.putNextEntry(new ZipEntry("lists/english.txt"));
      zip.write(String.join("\n", STOP_WORDS).getBytes(StandardCharsets.UTF_8));
      zip.closeEntry();
    }
    Configuration conf = conf();
    conf.set("tide.user.classpath.first", "true");

    JobRun run = Submitter.run(conf, System.out, "--jar", JOB_JAR, "-libjars", TEXT_JAR,
        "-archives", archive + "#stop", JOB_CLASS, "/user-job/in", "/user-job/out-archive",
        "stop/lists/english.txt");

    assertEquals(0, run.exitCode(), run.output());
    assertEquals(expected, WordCountOutput.read(cluster.fileSystem(), "/user-job/out-archive"));
  }

  @Test
  void withoutTheLibraryTheTasksFailNamingTheMissingClass() throws Exception {
    Path stopWords = localDir.resolve("stopwords.txt");
    Files.write(stopWords, STOP_WORDS, StandardCharsets.UTF_8);

    JobRun run = Submitter.run(conf(), System.out, "--jar", JOB_JAR, "-files",
        stopWords.toString(), JOB_CLASS, "/user-job/in", "/user-job/out-nolib");
    // The job class loads (Words is used only when a task runs), so the job is submitted and
    // its map tasks fail naming the missing class.
    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.output().contains("java.lang.NoClassDefFoundError:"
        + " dev/tide/examples/text/Words"), run.output());
    assertFalse(cluster.fileSystem().exists(new org.apache.hadoop.fs.Path("/user-job/out-nolib",
        "_SUCCESS")));
  }

  private static Configuration conf() {
    Configuration conf = cluster.clientConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    conf.set("tide.task.maxAttempts", "1");
    return conf;
  }

  /** Writes text with mixed case and punctuation; returns the counts of its non-stop words. */
  private static Map<String, Long> writeInput(FileSystem fs, String dir) throws IOException {
    String[] lines = {
        "The quick brown Fox jumps over the lazy dog.",
        "A fox, a dog, and the end of the story!",
        "Tide runs jobs of its own; and YOURS: your-job, your jar.",
        "",
        "Numbers 42 and 7 count as words too; 42 twice."};
    Map<String, Long> counts = new TreeMap<>();
    Set<String> stop = Set.copyOf(STOP_WORDS);
    for (int file = 0; file < 2; file++) {
      try (OutputStream raw = fs.create(new org.apache.hadoop.fs.Path(dir, "part-" + file));
          Writer out = new java.io.OutputStreamWriter(raw, StandardCharsets.UTF_8)) {
        for (int copy = 0; copy <= file; copy++) {
          for (String line : lines) {
            out.write(line + "\n");
            Matcher m = WORD.matcher(line);
            while (m.find()) {
              String word = m.group().toLowerCase(Locale.ROOT);
              if (!stop.contains(word)) {
                counts.merge(word, 1L, Long::sum);
              }
            }
          }
        }
      }
    }
    return counts;
  }
}
