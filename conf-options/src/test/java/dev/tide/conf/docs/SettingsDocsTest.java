package dev.tide.conf.docs;

import static dev.tide.conf.ConfigOption.bytesOption;
import static dev.tide.conf.ConfigOption.stringOption;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.conf.ConfigOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsDocsTest {
  private static final List<ConfigOption<?>> OPTIONS = List.of(
      bytesOption("tide.x.size", "16m", 0, "Memory for a | b.").withDeprecatedKeys("tide.x.bytes"),
      stringOption("tide.x.name", "", "Name <of> it & more."));

  @TempDir Path dir;

  @Test
  void tablesAndPropertiesCarryKeyDefaultDescriptionAndOldNames() {
    assertEquals("""
        | key | default | meaning |
        |---|---|---|
        | `tide.x.size` | `16m` | Memory for a \\| b. Formerly `tide.x.bytes` (still read, with a\
         deprecation warning). |
        | `tide.x.name` | (empty) | Name <of> it & more. |
        """, SettingsDocs.markdownTable(OPTIONS));
    String xml = SettingsDocs.xmlProperties(OPTIONS.subList(1, 2), "p.");
    assertEquals("""
          <property>
            <name>p.tide.x.name</name>
            <value></value>
            <description>Name &lt;of> it &amp; more.</description>
          </property>
        """, xml);
  }

  @Test
  void checkSectionComparesOnlyBetweenTheMarkers() throws Exception {
    Path file = dir.resolve("doc.md");
    Files.writeString(file, "intro\n<!-- BEGIN GENERATED: t -->\nold\n<!-- END GENERATED: t -->\n"
        + "outro\n");
    AssertionError e = assertThrows(AssertionError.class,
        () -> SettingsDocs.checkSection(file, "t", "new\n"));
    assertTrue(e.getMessage().contains("is\n  old\nand should be\n  new"), e.getMessage());
    SettingsDocs.checkSection(file, "t", "old\n");
    assertThrows(AssertionError.class, () -> SettingsDocs.checkSection(file, "other", "x\n"));
  }

  @Test
  void mentionedKeysSkipClassNamesAndPrefixes() {
    assertEquals(Set.of("tide.queue", "tide.shuffle.port"), SettingsDocs.mentionedKeys(
        "set `tide.queue` and tide.shuffle.port; dev.tide.shuffle.yarn.X, tide.shuffle.*,"
        + " `tide.dynamicAllocation.`"));
  }
}
