package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * conf/tide-site.xml, the admins' template, lists every setting with its true default: every
 * option of {@link TideOptions} and {@link AmOptions}, and every {@code tide.*} key that the code
 * of the driver, the executors, the built-in jobs, the client or the AM reads at all.
 */
class TideSiteTemplateTest {
  /** Source trees whose {@code "tide.*"} string literals are settings users may set. */
  private static final List<Path> SOURCES = List.of(
      Path.of("..", "driver-runtime", "src", "main", "java"),
      Path.of("..", "am", "src", "main", "java"));

  /** {@code "tide.*"} literals in those sources that are not user settings. */
  private static final Set<String> NOT_SETTINGS = Set.of(
      "tide.job", "tide.job.args", // set by the client from its command line
      "tide.application.secret", // alias of the secret in the container credentials
      AmOptions.STAGED_JAR_KEY, AmOptions.STAGING_APP_DIR_KEY, // set by the client in tide-job.xml
      UserResources.STAGED_KEY,
      // prefixes (tide.am.env.NAME, tide.executor.env.NAME), described in the template's header
      ContainerCommands.AM_ENV_PREFIX, ContainerCommands.EXECUTOR_ENV_PREFIX,
      dev.tide.driver.UserClassLoader.USER_JARS_KEY);

  private static final Pattern KEY_LITERAL = Pattern.compile("\"(tide\\.[A-Za-z0-9_.]+)\"");

  @Test
  void everyTideKeyTheCodeReadsIsInTheTemplate() throws Exception {
    String text = Files.readString(Path.of("..", "conf", "tide-site.xml"));
    Set<String> keys = new TreeSet<>();
    for (Path root : SOURCES) {
      assertTrue(Files.isDirectory(root), "missing " + root.toAbsolutePath());
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          Matcher m = KEY_LITERAL.matcher(Files.readString(file));
          while (m.find()) {
            keys.add(m.group(1));
          }
        }
      }
    }
    assertTrue(keys.contains(TideOptions.WORDCOUNT_REDUCERS.key()), "the scan finds keys: " + keys);
    keys.removeAll(NOT_SETTINGS);
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      if (!text.contains("<name>" + key + "</name>")) {
        missing.add(key);
      }
    }
    assertEquals(List.of(), missing, "keys read by the code but missing from conf/tide-site.xml"
        + " (add them with their default and a description, ideally as a ConfigOption)");
  }

  @Test
  void templateListsEverySettingWithItsDefault() throws Exception {
    Path template = Path.of("..", "conf", "tide-site.xml");
    assertTrue(Files.exists(template), "missing " + template.toAbsolutePath());
    Configuration conf = new Configuration(false);
    conf.addResource(template.toUri().toURL());
    String text = Files.readString(template);
    List<ConfigOption<?>> all = new ArrayList<>(TideOptions.all());
    all.addAll(AmOptions.all());
    for (ConfigOption<?> option : all) {
      if (option == TideOptions.JOB || option == TideOptions.JOB_ARGS) {
        continue; // set by the client from its command line
      }
      assertTrue(text.contains("<name>" + option.key() + "</name>"),
          option.key() + " is missing from " + template);
      assertEquals(option.get(new Configuration(false)), option.get(conf),
          "default of " + option.key() + " in " + template);
    }
  }
}
