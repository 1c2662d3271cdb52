package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class JobStartFactsTest {
  @Test
  void theJobsSettingsComeFirstAsSetOrByDefaultThenTheSubmissions() {
    Configuration conf = new Configuration(false);
    conf.set(TideOptions.DA_MAX_EXECUTORS.key(), "7");
    ConfigOption<?> submission = TideOptions.JOB;
    conf.set(submission.key(), "wordcount");

    List<Object> shown = Arrays.asList(JobStartFacts.settingsShown(conf, List.of(submission)));

    assertEquals(AppOptions.JOB_ARGS.key(), shown.get(0));
    int max = shown.indexOf(TideOptions.DA_MAX_EXECUTORS.key());
    assertEquals("7", shown.get(max + 1));
    int cores = shown.indexOf(AppOptions.EXECUTOR_CORES.key());
    assertEquals(AppOptions.EXECUTOR_CORES.defaultText(), shown.get(cores + 1));
    assertEquals(List.of(submission.key(), "wordcount"),
        shown.subList(shown.size() - 2, shown.size()));
    assertEquals(0, shown.size() % 2, "key, value pairs");
  }

  @Test
  void theUserIsKnown() {
    assertFalse(JobStartFacts.currentUser().isEmpty());
  }
}
