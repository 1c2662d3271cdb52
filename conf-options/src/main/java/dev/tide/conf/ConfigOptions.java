package dev.tide.conf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;

/**
 * What a module does with all of its options at once: validate them at start-up, log their
 * effective values, spot unknown keys (typos) under its prefix. Stateless.
 */
public final class ConfigOptions {
  private ConfigOptions() {}

  /**
   * Reads every option once, so that bad values fail at start-up rather than when first used.
   *
   * @throws IllegalArgumentException naming every bad key with its value (one per line)
   */
  public static void validate(Configuration conf, Collection<? extends ConfigOption<?>> options) {
    List<String> errors = new ArrayList<>();
    for (ConfigOption<?> option : options) {
      String error = option.check(conf);
      if (error != null) {
        errors.add(error);
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", errors));
    }
  }

  /** {@code key=value, ...} of every option as in effect (defaults filled in), for the log. */
  public static String describe(Configuration conf, Collection<? extends ConfigOption<?>> options) {
    StringBuilder out = new StringBuilder();
    for (ConfigOption<?> option : options) {
      out.append(out.length() == 0 ? "" : ", ").append(option.key()).append('=');
      try {
        Object value = option.get(conf);
        out.append(value instanceof Duration d ? d.toMillis() + "ms" : String.valueOf(value));
      } catch (IllegalArgumentException e) {
        out.append("(bad value)");
      }
    }
    return out.toString();
  }

  /**
   * The keys of {@code conf} that start with {@code prefix} but are neither a key nor a
   * deprecated key of {@code options}: probably typos, worth a WARN. Sorted.
   */
  public static Set<String> unknownKeys(Configuration conf, String prefix,
      Collection<? extends ConfigOption<?>> options) {
    Set<String> known = new HashSet<>();
    for (ConfigOption<?> option : options) {
      known.add(option.key());
      known.addAll(option.deprecatedKeys());
    }
    Set<String> unknown = new TreeSet<>();
    for (Map.Entry<String, String> entry : conf) {
      if (entry.getKey().startsWith(prefix) && !known.contains(entry.getKey())) {
        unknown.add(entry.getKey());
      }
    }
    return unknown;
  }

  /** A Configuration (no default resources) holding exactly {@code properties}. */
  public static Configuration fromMap(Map<String, String> properties, String keyPrefix) {
    Configuration conf = new Configuration(false);
    properties.forEach((k, v) -> conf.set(keyPrefix + k, v));
    return conf;
  }
}
