package dev.tide.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.JobPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job output directory on the local FileSystem. */
class JobOutputTest {
  private final Configuration conf = new Configuration(false);

  @Test
  void aNewAttemptOfTheSameApplicationStartsItsUncommittedOutputOver(@TempDir Path dir)
      throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    // The first attempt's AM dies after a task wrote its file.
    Path attempt = writeAttemptFile(out, 7, "from attempt 1");

    JobOutput.prepare(conf, out, "application_1_0001");
    assertFalse(Files.exists(attempt), "the earlier attempt's files are gone");
    assertTrue(Files.isDirectory(dir.resolve("out").resolve(JobOutput.TEMPORARY)));
  }

  @Test
  void existingOutputOfAnotherApplicationIsRefused(@TempDir Path dir) throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    IOException e = assertThrows(IOException.class,
        () -> JobOutput.prepare(conf, out, "application_1_0002"));
    assertTrue(e.getMessage().contains("already exists"), e.getMessage());

    Path other = dir.resolve("other");
    Files.createDirectories(other);
    assertThrows(IOException.class,
        () -> JobOutput.prepare(conf, other.toUri().toString(), "application_1_0001"));
  }

  /**
   * The client refuses an output that exists, before submission; an uncommitted one (with
   * {@code _temporary}) is left to the ApplicationMaster.
   */
  @Test
  void theClientsCheckRefusesAnExistingOutputOnly(@TempDir Path dir) throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobPaths.requireNewOutput(conf, out);
    JobPaths.requireNewOutput(conf, "");
    JobOutput.prepare(conf, out, "application_1_0001");
    JobPaths.requireNewOutput(conf, out);
    JobOutput.commit(conf, out);
    IOException e = assertThrows(IOException.class, () -> JobPaths.requireNewOutput(conf, out));
    assertEquals("output directory file:" + dir.resolve("out") + " already exists",
        e.getMessage());
  }

  @Test
  void theUncommittedOutputOfAnApplicationThatNoLongerRunsIsDeleted(@TempDir Path dir)
      throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    // Its AM is SIGKILLed after a task committed its file: nothing cleans up.
    Path attempt = writeAttemptFile(out, 7, "from the dead application");
    assertTrue(JobOutput.commitTask(conf, out, 7, 0));
    List<String> asked = new ArrayList<>();

    JobOutput.prepare(conf, out, "application_1_0002", appId -> {
      asked.add(appId);
      return false;
    });

    assertEquals(List.of("application_1_0001"), asked);
    try (Stream<Path> files = Files.walk(dir.resolve("out"))) {
      assertEquals(Set.of("out", JobOutput.TEMPORARY, "_application_application_1_0002"),
          files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("."))
              .collect(Collectors.toSet()), "only the new application's empty directory");
    }
  }

  @Test
  void theOutputOfAnApplicationThatStillRunsOrMayRunIsNeverTouched(@TempDir Path dir)
      throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    Path attempt = writeAttemptFile(out, 7, "still being written");

    IOException running = assertThrows(IOException.class,
        () -> JobOutput.prepare(conf, out, "application_1_0002", appId -> true));
    assertTrue(running.getMessage().endsWith("already exists: it is being written by"
        + " application_1_0001, which is still running"), running.getMessage());
    assertThrows(IOException.class, () -> JobOutput.prepare(conf, out, "application_1_0002",
        appId -> {
          throw new IOException("ResourceManager unreachable");
        }));
    assertEquals("still being written", Files.readString(attempt));
  }

  @Test
  void aCommittedOutputIsRefusedWhoeverMadeIt(@TempDir Path dir) throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    JobOutput.commit(conf, out);
    IOException e = assertThrows(IOException.class,
        () -> JobOutput.prepare(conf, out, "application_1_0002", appId -> false));
    assertTrue(e.getMessage().endsWith("already exists"), e.getMessage());
    assertTrue(Files.exists(dir.resolve("out").resolve("_SUCCESS")));
  }

  @Test
  void theCommittedDirectoryHoldsThePartFilesAndSuccessOnly(@TempDir Path dir)
      throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    Path attempt = writeAttemptFile(out, 3, "a\t1\n");
    assertTrue(JobOutput.commitTask(conf, out, 3, 0));
    JobOutput.commit(conf, out);
    try (Stream<Path> files = Files.list(dir.resolve("out"))) {
      Set<String> names = files.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith(".")) // the local FileSystem's checksum files
          .collect(Collectors.toSet());
      assertEquals(Set.of("part-r-00000", "_SUCCESS"), names);
    }
  }

  /** What a task attempt writes: its part file of partition 0. */
  private static Path writeAttemptFile(String out, long taskId, String text) throws IOException {
    Path attempt = Path.of(JobOutput.attemptFile(out, taskId, 0).toUri());
    Files.createDirectories(attempt.getParent());
    Files.writeString(attempt, text);
    return attempt;
  }

  @Test
  void aSpeculativeAttemptThatLostLeavesNothingInTheCommittedOutput(@TempDir Path dir)
      throws Exception {
    String out = dir.resolve("out").toUri().toString();
    JobOutput.prepare(conf, out, "application_1_0001");
    try (var original = JobOutput.createAttemptFile(conf, out, 3, 0)) {
      original.write("from the original\n".getBytes());
    }
    try (var copy = JobOutput.createAttemptFile(conf, out, 9, 0)) {
      copy.write("from the copy\n".getBytes());
    }
    assertTrue(JobOutput.commitTask(conf, out, 9, 0), "the copy finishes first and wins");
    JobOutput.commit(conf, out);
    // The original ends after the job committed: it commits nothing and leaves nothing.
    assertFalse(JobOutput.commitTask(conf, out, 3, 0));
    IOException late = assertThrows(IOException.class,
        () -> JobOutput.createAttemptFile(conf, out, 12, 0));
    assertTrue(late.getMessage().contains("was already committed"), late.getMessage());
    try (Stream<Path> files = Files.list(dir.resolve("out"))) {
      assertEquals(Set.of("part-r-00000", "_SUCCESS"), files.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith(".")).collect(Collectors.toSet()));
    }
    assertEquals("from the copy\n", Files.readString(dir.resolve("out").resolve("part-r-00000")));
  }
}
