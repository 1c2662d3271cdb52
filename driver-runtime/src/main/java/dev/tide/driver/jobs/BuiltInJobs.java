package dev.tide.driver.jobs;

import dev.tide.driver.job.JobClasses;
import dev.tide.driver.job.TideJob;
import java.util.List;
import java.util.Map;

/** The built-in jobs by their short names; a job is named by one of these or by its class. */
public final class BuiltInJobs {
  private static final Map<String, String> BUILT_IN = Map.of(
      "wordcount", WordCountJob.class.getName(),
      "sleep", SleepJob.class.getName(),
      "sort", SortJob.class.getName(),
      "sortvalidate", SortValidateJob.class.getName(),
      "kmeans", KMeansJob.class.getName(),
      "stream-rate", StreamRateJob.class.getName(),
      "stream-wordcount", StreamWordCountJob.class.getName());

  private BuiltInJobs() {}

  /** The names of the built-in jobs, sorted. */
  public static List<String> builtInNames() {
    return BUILT_IN.keySet().stream().sorted().toList();
  }

  /** A new instance of the built-in job {@code name}, or of the {@link TideJob} class so named. */
  public static TideJob newJob(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("no job given: name a built-in job ("
          + String.join(", ", builtInNames()) + ") or a TideJob class");
    }
    return JobClasses.newInstance(BUILT_IN.getOrDefault(name, name), TideJob.class, "job");
  }
}
