package dev.tide.driver.jobs;

import dev.tide.driver.job.TideJob;
import java.util.Map;

/** Resolves job, mapper and reducer names to new instances (built-in names or class names). */
public final class JobClasses {
  private static final Map<String, String> BUILT_IN = Map.of(
      "wordcount", WordCountJob.class.getName(),
      "sleep", SleepJob.class.getName(),
      "sort", SortJob.class.getName(),
      "sortvalidate", SortValidateJob.class.getName(),
      "kmeans", KMeansJob.class.getName(),
      "stream-rate", StreamRateJob.class.getName(),
      "stream-wordcount", StreamWordCountJob.class.getName());

  private JobClasses() {}

  /** The names of the built-in jobs, sorted. */
  public static java.util.List<String> builtInNames() {
    return BUILT_IN.keySet().stream().sorted().toList();
  }

  public static TideJob newJob(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("no job given: name a built-in job ("
          + String.join(", ", builtInNames()) + ") or a TideJob class");
    }
    return newInstance(BUILT_IN.getOrDefault(name, name), TideJob.class, "job");
  }

  public static <T> T newInstance(String className, Class<T> type, String role) {
    Class<?> cls;
    try {
      cls = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(role + " class " + className
          + " not found on the classpath", e);
    }
    if (!type.isAssignableFrom(cls)) {
      throw new IllegalArgumentException(role + " class " + className + " does not implement "
          + type.getName());
    }
    try {
      return type.cast(cls.getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(role + " class " + className
          + " needs a public no-arg constructor", e);
    }
  }
}
