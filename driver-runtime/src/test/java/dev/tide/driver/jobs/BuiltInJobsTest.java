package dev.tide.driver.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.TideJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a job named in its spec is found: a built-in name or a class name, or why not. */
class BuiltInJobsTest {
  /** A user's job, named by its class. */
  public static final class ByClassName implements TideJob {}

  /** Not a job. */
  public static final class NotAJob {}

  /** A job without a no-arg constructor. */
  public static final class NeedsArgument implements TideJob {
    public NeedsArgument(String unused) {}
  }

  @Test
  void aJobIsFoundByItsBuiltInNameOrItsClassName() {
    assertEquals(List.of("kmeans", "sleep", "sort", "sortvalidate", "stream-rate",
        "stream-wordcount", "wordcount"), BuiltInJobs.builtInNames());
    assertEquals("WordCountJob", BuiltInJobs.newJob("wordcount").getClass().getSimpleName());
    assertInstanceOf(ByClassName.class, BuiltInJobs.newJob(ByClassName.class.getName()));
  }

  @Test
  void aJobThatCannotBeMadeIsNamedWithWhy() {
    assertEquals("no job given: name a built-in job (kmeans, sleep, sort, sortvalidate,"
        + " stream-rate, stream-wordcount, wordcount) or a TideJob class",
        assertThrows(IllegalArgumentException.class, () -> BuiltInJobs.newJob(" "))
            .getMessage());
    assertEquals("job class com.example.Missing not found on the classpath",
        assertThrows(IllegalArgumentException.class,
            () -> BuiltInJobs.newJob("com.example.Missing")).getMessage());
    assertEquals("job class " + NotAJob.class.getName() + " does not implement "
        + TideJob.class.getName(), assertThrows(IllegalArgumentException.class,
            () -> BuiltInJobs.newJob(NotAJob.class.getName())).getMessage());
    assertEquals("job class " + NeedsArgument.class.getName()
        + " needs a public no-arg constructor", assertThrows(IllegalArgumentException.class,
            () -> BuiltInJobs.newJob(NeedsArgument.class.getName())).getMessage());
  }

}
