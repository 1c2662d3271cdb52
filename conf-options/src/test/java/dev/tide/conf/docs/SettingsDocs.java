package dev.tide.conf.docs;

import dev.tide.conf.ConfigOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the settings tables of the docs and the property lists of the conf/ templates from the
 * option definitions, and checks that the checked-in files hold exactly that. Each generated part
 * of a file sits between two marker lines,
 * {@code <!-- BEGIN GENERATED: id -->} and {@code <!-- END GENERATED: id -->} (an HTML/XML comment,
 * so it works in Markdown and XML alike); everything around them is written by hand.
 *
 * <p>Used from each module's tests (this class ships in the test-jar of {@code conf-options}).
 * When a check fails, change the option, not the file, and regenerate the files with
 * {@code mvn -o -pl <module> -am test -Dtest=<its test> -Dsurefire.failIfNoSpecifiedTests=false
 * -DskipFuzz -Dtide.regenerateDocs=true} ({@code -am} builds conf-options and the module's other
 * Tide dependencies in the same run instead of taking them from the local repository).
 */
public final class SettingsDocs {
  /** System property that makes {@link #checkSection} rewrite the file instead of failing. */
  public static final String REGENERATE = "tide.regenerateDocs";

  /** A Tide setting mentioned in prose: {@code tide.} + name, not part of a class name. */
  private static final Pattern MENTIONED_KEY =
      Pattern.compile("(?<![\\w.$/-])tide\\.[A-Za-z][\\w.-]*[\\w]");

  private SettingsDocs() {}

  /** A Markdown table {@code | key | default | meaning |}, one row per option, in order. */
  public static String markdownTable(List<? extends ConfigOption<?>> options) {
    StringBuilder out = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
    for (ConfigOption<?> option : options) {
      String def = option.defaultText().isEmpty() ? "(empty)" : "`" + option.defaultText() + "`";
      out.append("| `").append(option.key()).append("` | ").append(def).append(" | ")
          .append(describe(option, "`").replace("|", "\\|")).append(" |\n");
    }
    return out.toString();
  }

  /**
   * Hadoop configuration properties, one per option with its default and description, as in
   * conf/*.xml.
   *
   * @param namePrefix put before each key ({@code yarn.scheduler.capacity.root.batch.})
   */
  public static String xmlProperties(List<? extends ConfigOption<?>> options, String namePrefix) {
    StringBuilder out = new StringBuilder();
    for (ConfigOption<?> option : options) {
      out.append("  <property>\n")
          .append("    <name>").append(xml(namePrefix + option.key())).append("</name>\n")
          .append("    <value>").append(xml(option.defaultText())).append("</value>\n")
          .append("    <description>").append(xml(describe(option, ""))).append("</description>\n")
          .append("  </property>\n");
    }
    return out.toString();
  }

  private static String describe(ConfigOption<?> option, String quote) {
    if (option.deprecatedKeys().isEmpty()) {
      return option.description();
    }
    List<String> old = option.deprecatedKeys().stream().map(k -> quote + k + quote).toList();
    return option.description() + " Formerly " + String.join(", ", old)
        + " (still read, with a deprecation warning).";
  }

  private static String xml(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;");
  }

  /**
   * Checks that the part of {@code file} between the markers of {@code id} is {@code generated};
   * with {@code -Dtide.regenerateDocs=true} rewrites that part instead.
   *
   * @throws AssertionError naming the file, the section and the first line that differs
   */
  public static void checkSection(Path file, String id, String generated) throws IOException {
    String text = Files.readString(file);
    String begin = "<!-- BEGIN GENERATED: " + id + " -->\n";
    String end = "<!-- END GENERATED: " + id + " -->";
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new AssertionError(file + " has no section '" + begin.trim() + "' ... '" + end + "'");
    }
    int start = from + begin.length();
    // The END marker may be indented; the generated text ends with a newline.
    int lineStart = text.lastIndexOf('\n', to - 1) + 1;
    String current = text.substring(start, lineStart);
    if (current.equals(generated)) {
      return;
    }
    if (Boolean.getBoolean(REGENERATE)) {
      Files.writeString(file, text.substring(0, start) + generated + text.substring(lineStart));
      return;
    }
    throw new AssertionError(file + ", section " + id + ", is not what the option definitions"
        + " generate; change the options (key, default, description) rather than the file, then"
        + " regenerate it with -D" + REGENERATE + "=true. First difference: "
        + firstDifference(current, generated));
  }

  private static String firstDifference(String current, String generated) {
    String[] a = current.split("\n", -1);
    String[] b = generated.split("\n", -1);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "(end)";
      String y = i < b.length ? b[i] : "(end)";
      if (!x.equals(y)) {
        return "line " + (i + 1) + " of the section is\n  " + x + "\nand should be\n  " + y;
      }
    }
    return "(none)";
  }

  /**
   * The {@code tide.*} keys mentioned in {@code text}: not package names such as dev.tide.x, nor
   * prefixes ({@code tide.shuffle.*}, {@code tide.dynamicAllocation.}).
   */
  public static Set<String> mentionedKeys(String text) {
    Set<String> keys = new TreeSet<>();
    Matcher m = MENTIONED_KEY.matcher(text);
    while (m.find()) {
      char next = m.end() < text.length() ? text.charAt(m.end()) : ' ';
      if (next != '.' && next != '*') {
        keys.add(m.group());
      }
    }
    return keys;
  }
}
