package dev.tide.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.conf.ConfigOption;
import dev.tide.conf.docs.SettingsDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The settings table of docs/queue-policy.md and the policy's entries in
 * conf/capacity-scheduler.xml are generated from {@link QueuePolicySettings#OPTIONS}, and the
 * template sets no {@code ordering-policy.*} key the policy does not know. Regenerate with
 * {@code mvn -o -pl queue-policy -am test -Dtest=SettingsDocTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtide.regenerateDocs=true}.
 */
class SettingsDocTest {
  private static final Path DOC = Path.of("..", "docs", "queue-policy.md");
  private static final Path TEMPLATE = Path.of("..", "conf", "capacity-scheduler.xml");
  /** The template's example queue. */
  private static final String QUEUE_PREFIX = "yarn.scheduler.capacity.root.batch.";

  @Test
  void docTableIsGeneratedFromTheOptions() throws Exception {
    SettingsDocs.checkSection(DOC, "settings (from QueuePolicySettings; see SettingsDocTest)",
        SettingsDocs.markdownTable(QueuePolicySettings.OPTIONS));
  }

  @Test
  void templateIsGeneratedFromTheOptions() throws Exception {
    SettingsDocs.checkSection(TEMPLATE, "settings (from QueuePolicySettings)",
        SettingsDocs.xmlProperties(QueuePolicySettings.OPTIONS, QUEUE_PREFIX));
  }

  @Test
  void templateSetsNoUnknownPolicyKey() throws Exception {
    Set<String> known = QueuePolicySettings.OPTIONS.stream().map(ConfigOption::key)
        .collect(Collectors.toSet());
    Matcher m = Pattern.compile("<name>yarn\\.scheduler\\.capacity\\.[\\w.-]*?\\.("
        + Pattern.quote(QueuePolicySettings.PREFIX) + "[\\w.-]+)</name>")
        .matcher(Files.readString(TEMPLATE));
    Set<String> unknown = new TreeSet<>();
    while (m.find()) {
      if (!known.contains(m.group(1))) {
        unknown.add(m.group(1));
      }
    }
    assertEquals(Set.of(), unknown);
  }
}
