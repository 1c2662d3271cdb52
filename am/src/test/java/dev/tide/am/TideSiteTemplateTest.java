package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.staging.ContainerCommands;
import dev.tide.am.staging.UserResources;
import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import dev.tide.conf.docs.SettingsDocs;
import dev.tide.driver.conf.TideOptions;
import dev.tide.shuffle.yarn.ShuffleServiceOptions;
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
 * conf/tide-site.xml, the admins' template, is generated from the options of {@link TideOptions}
 * and {@link AmOptions} (key, default, description), and lists every {@code tide.*} key that the
 * code of the driver, the executors, the built-in jobs, the client or the AM reads at all; the
 * README and the docs mention no {@code tide.*} key that is not a setting.
 */
class TideSiteTemplateTest {
  /** Source trees whose {@code "tide.*"} string literals are settings users may set. */
  private static final List<Path> SOURCES = List.of(
      Path.of("..", "tide-api", "src", "main", "java"),
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
      dev.tide.app.UserClassLoader.USER_JARS_KEY);

  private static final Pattern KEY_LITERAL = Pattern.compile("\"(tide\\.[A-Za-z0-9_.]+)\"");

  private static final Path TEMPLATE = Path.of("..", "conf", "tide-site.xml");

  @Test
  void everyTideKeyTheCodeReadsIsInTheTemplate() throws Exception {
    String text = Files.readString(TEMPLATE);
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
    for (ConfigOption<?> option : templateOptions()) {
      keys.removeAll(option.deprecatedKeys()); // old names, read with a warning; not listed
    }
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      if (!text.contains("<name>" + key + "</name>")) {
        missing.add(key);
      }
    }
    assertEquals(List.of(), missing, "keys read by the code but missing from conf/tide-site.xml"
        + " (add them with their default and a description, ideally as a ConfigOption)");
  }

  /** The options conf/tide-site.xml lists: all of the driver's and the AM's but the two the
   * client sets from its command line. */
  static List<ConfigOption<?>> templateOptions() {
    List<ConfigOption<?>> all = new ArrayList<>(TideOptions.all());
    all.remove(TideOptions.JOB);
    all.remove(AppOptions.JOB_ARGS);
    all.addAll(AmOptions.all());
    return all;
  }

  /** Regenerate with {@code mvn -o -pl am -am test -Dtest=TideSiteTemplateTest
   * -Dsurefire.failIfNoSpecifiedTests=false -DskipFuzz -Dtide.regenerateDocs=true}. */
  @Test
  void templateIsGeneratedFromTheOptions() throws Exception {
    SettingsDocs.checkSection(TEMPLATE, "settings (from TideOptions and AmOptions; see"
        + " TideSiteTemplateTest)", SettingsDocs.xmlProperties(templateOptions(), ""));
  }

  @Test
  void templateDefaultsAreTheDefaults() throws Exception {
    Configuration conf = new Configuration(false);
    conf.addResource(TEMPLATE.toUri().toURL());
    for (ConfigOption<?> option : templateOptions()) {
      assertEquals(option.defaultValue(), option.get(conf), "default of " + option.key());
    }
  }

  /**
   * The README, docs/, conf/ and the shuffle service's docs mention no {@code tide.*} key that
   * is not a setting (a renamed
   * or misspelt key in the docs sends users to a setting that does nothing).
   */
  @Test
  void docsMentionOnlyKnownSettings() throws Exception {
    Set<String> known = new TreeSet<>(NOT_SETTINGS);
    List<ConfigOption<?>> all = new ArrayList<>(TideOptions.all());
    all.addAll(AmOptions.all());
    all.addAll(ShuffleServiceOptions.ALL);
    for (ConfigOption<?> option : all) {
      known.add(option.key());
      known.addAll(option.deprecatedKeys());
    }
    List<Path> docs = new ArrayList<>(List.of(Path.of("..", "README.md"),
        Path.of("..", "shuffle-service", "OPERATIONS.md"),
        Path.of("..", "shuffle-service", "PROTOCOL.md")));
    for (String dir : List.of("docs", "conf")) {
      try (Stream<Path> files = Files.list(Path.of("..", dir))) {
        docs.addAll(files.filter(f -> f.toString().matches(".*\\.(md|xml)")).sorted().toList());
      }
    }
    Set<String> unknown = new TreeSet<>();
    for (Path doc : docs) {
      for (String key : SettingsDocs.mentionedKeys(Files.readString(doc))) {
        boolean environment = key.startsWith(ContainerCommands.AM_ENV_PREFIX)
            || key.startsWith(ContainerCommands.EXECUTOR_ENV_PREFIX); // tide.am.env.NAME
        if (!known.contains(key) && !environment) {
          unknown.add(doc.getFileName() + ": " + key);
        }
      }
    }
    assertEquals(Set.of(), unknown, "tide.* keys in the docs that are no setting");
  }
}
