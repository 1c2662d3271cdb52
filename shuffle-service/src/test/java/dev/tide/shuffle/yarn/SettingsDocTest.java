package dev.tide.shuffle.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.conf.ConfigOption;
import dev.tide.conf.docs.SettingsDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The settings table of OPERATIONS.md and the tide_shuffle entry of conf/yarn-site.xml are
 * generated from {@link ShuffleServiceOptions}, PROTOCOL.md quotes the true defaults, and the
 * service's docs mention no
 * {@code tide.shuffle.*} key that is not one of its settings (or an old name of one).
 * Regenerate with {@code mvn -o -pl shuffle-service -am test -Dtest=SettingsDocTest
 * -Dsurefire.failIfNoSpecifiedTests=false -DskipFuzz -Dtide.regenerateDocs=true}.
 */
class SettingsDocTest {
  private static final Path OPERATIONS = Path.of("OPERATIONS.md");
  private static final Path PROTOCOL = Path.of("PROTOCOL.md");
  private static final Path YARN_SITE = Path.of("..", "conf", "yarn-site.xml");

  @Test
  void operationsTableIsGeneratedFromTheOptions() throws Exception {
    SettingsDocs.checkSection(OPERATIONS, "settings (from ShuffleServiceOptions; see"
        + " SettingsDocTest)", SettingsDocs.markdownTable(ShuffleServiceOptions.ALL));
  }

  @Test
  void yarnSiteTemplateCarriesThePortAsTheOptionDefinesIt() throws Exception {
    SettingsDocs.checkSection(YARN_SITE, "port (from ShuffleServiceOptions)",
        SettingsDocs.xmlProperties(List.of(ShuffleServiceOptions.PORT), ""));
  }

  @Test
  void yarnSiteTemplateCarriesTheMigrationRateAsTheOptionDefinesIt() throws Exception {
    SettingsDocs.checkSection(YARN_SITE, "migration (from ShuffleServiceOptions)",
        SettingsDocs.xmlProperties(List.of(ShuffleServiceOptions.MIGRATION_MAX_BYTES_PER_SEC), ""));
  }

  @Test
  void yarnSiteTemplateCarriesTheEncryptionRequirementAsTheOptionDefinesIt() throws Exception {
    SettingsDocs.checkSection(YARN_SITE, "encryption (from ShuffleServiceOptions)",
        SettingsDocs.xmlProperties(List.of(ShuffleServiceOptions.CRYPTO_REQUIRED), ""));
  }

  /**
   * PROTOCOL.md's table of limits names each limit's setting with its default in prose
   * ({@code `tide.shuffle.maxReply` (1 GiB)}); those defaults are the options' defaults.
   */
  @Test
  void protocolLimitsQuoteTheDefaults() throws Exception {
    Map<String, ConfigOption<?>> byKey = new HashMap<>();
    ShuffleServiceOptions.ALL.forEach(o -> byKey.put(o.key(), o));
    Matcher m = Pattern.compile("`(tide\\.shuffle\\.[\\w.]+)`,? \\((?:default )?([^,)]+)")
        .matcher(Files.readString(PROTOCOL));
    List<String> wrong = new ArrayList<>();
    int quoted = 0;
    while (m.find()) {
      ConfigOption<?> option = byKey.get(m.group(1));
      String text = m.group(2).replace(" ", "").replace("iB", "").toLowerCase(Locale.ROOT);
      if (option == null || !option.withDefault(text).defaultValue().equals(option.defaultValue())) {
        wrong.add(m.group(1) + " (" + m.group(2) + ")");
      }
      quoted++;
    }
    assertTrue(quoted >= 10, "the scan finds the limits table: " + quoted);
    assertEquals(List.of(), wrong, "PROTOCOL.md quotes these defaults wrongly");
  }

  /**
   * Settings of jobs (driver-runtime's TideOptions, which this module cannot see) that the
   * service's docs mention; am's TideSiteTemplateTest checks these docs against TideOptions.
   */
  private static final Set<String> JOB_SETTINGS = Set.of(
      "tide.executor.shuffle.checksum.enabled", "tide.executor.shuffle.sort.buffer",
      "tide.executor.shuffle.maxBytesInFlight");

  @Test
  void docsMentionOnlyKnownSettings() throws Exception {
    Set<String> known = new HashSet<>(JOB_SETTINGS);
    for (ConfigOption<?> option : ShuffleServiceOptions.ALL) {
      known.add(option.key());
      known.addAll(option.deprecatedKeys());
    }
    Set<String> unknown = new TreeSet<>();
    for (Path doc : List.of(OPERATIONS, PROTOCOL, YARN_SITE)) {
      for (String key : SettingsDocs.mentionedKeys(Files.readString(doc))) {
        if (key.startsWith("tide.shuffle.") && !known.contains(key)) {
          unknown.add(doc + ": " + key);
        }
      }
    }
    assertEquals(Set.of(), unknown, "tide.shuffle.* keys in the docs that are no setting");
  }
}
