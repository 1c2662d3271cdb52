package dev.tide.driver;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/** What the job's start records about it: who runs it and the settings that size it. */
final class JobStartFacts {
  /** The job's own settings the UI's Overview shows, before the submission's. */
  private static final List<ConfigOption<?>> SHOWN = List.of(AppOptions.JOB_ARGS,
      AppOptions.EXECUTOR_CORES, AppOptions.EXECUTOR_MEMORY_MB, AppOptions.TASK_CPUS,
      TideOptions.DA_ENABLED, TideOptions.DA_MIN_EXECUTORS, TideOptions.DA_MAX_EXECUTORS,
      TideOptions.DA_EXECUTOR_IDLE_TIMEOUT, TideOptions.DA_RAMP_UP,
      TideOptions.STREAMING_BATCH_INTERVAL, TideOptions.SDA_ENABLED, TideOptions.SDA_POLICY,
      TideOptions.SDA_MIN_EXECUTORS, TideOptions.SDA_MAX_EXECUTORS);

  private JobStartFacts() {}

  /**
   * The settings the UI's Overview shows (key, value, key, value ...): the job's, then
   * {@code submission}'s (the AM's queue, say), each as set or its default.
   */
  static Object[] settingsShown(Configuration conf, List<ConfigOption<?>> submission) {
    List<Object> shown = new ArrayList<>();
    for (List<ConfigOption<?>> options : List.of(SHOWN, submission)) {
      for (ConfigOption<?> option : options) {
        shown.add(option.key());
        shown.add(conf.get(option.key(), option.defaultText()));
      }
    }
    return shown.toArray();
  }

  /** The short name of the user the driver runs as (the system's user name if unknown). */
  static String currentUser() {
    try {
      return UserGroupInformation.getCurrentUser().getShortUserName();
    } catch (IOException e) {
      return System.getProperty("user.name", "");
    }
  }
}
