package dev.tide.driver.conf;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.StorageUnit;

/**
 * A typed setting: key, default, description and validation in one place. Reading a bad value
 * fails with a message that names the key and the value.
 *
 * @param <T> the value's type
 */
public final class ConfigOption<T> {
  /** Reads and validates a value; throws IllegalArgumentException with a reason. */
  @FunctionalInterface
  interface Reader<T> {
    T read(Configuration conf, String key, String defaultText);
  }

  private final String key;
  private final String defaultText;
  private final String description;
  private final Reader<T> reader;

  private ConfigOption(String key, String defaultText, String description, Reader<T> reader) {
    this.key = key;
    this.defaultText = defaultText;
    this.description = description;
    this.reader = reader;
  }

  public String key() { return key; }

  /** The default as a person would write it in tide-site.xml ("60s", "512m", "1"). */
  public String defaultText() { return defaultText; }

  public String description() { return description; }

  /** @throws IllegalArgumentException naming the key and the bad value */
  public T get(Configuration conf) {
    try {
      return reader.read(conf, key, defaultText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad value for " + key + " = '" + conf.get(key)
          + "': " + e.getMessage(), e);
    }
  }

  public static ConfigOption<Integer> intOption(String key, int defaultValue, int min,
      String description) {
    return new ConfigOption<>(key, Integer.toString(defaultValue), description,
        (conf, k, d) -> {
          String text = conf.getTrimmed(k);
          int value;
          try {
            value = text == null ? Integer.parseInt(d) : Integer.parseInt(text);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected an integer");
          }
          if (value < min) {
            throw new IllegalArgumentException("must be at least " + min);
          }
          return value;
        });
  }

  public static ConfigOption<Boolean> booleanOption(String key, boolean defaultValue,
      String description) {
    return new ConfigOption<>(key, Boolean.toString(defaultValue), description,
        (conf, k, d) -> {
          String text = conf.getTrimmed(k, d);
          if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("expected true or false");
          }
          return Boolean.parseBoolean(text);
        });
  }

  public static ConfigOption<String> stringOption(String key, String defaultValue,
      String description) {
    return new ConfigOption<>(key, defaultValue, description,
        (conf, k, d) -> conf.getTrimmed(k, d));
  }

  /** A duration written as people write it ("100ms", "60s", "2m"); no unit means seconds. */
  public static ConfigOption<Duration> durationOption(String key, String defaultValue,
      String description) {
    return new ConfigOption<>(key, defaultValue, description, (conf, k, d) -> {
      String text = conf.getTrimmed(k, d);
      long millis;
      try {
        Configuration probe = new Configuration(false);
        probe.set(k, text);
        millis = probe.getTimeDuration(k, 0, TimeUnit.SECONDS, TimeUnit.MILLISECONDS);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("expected a duration such as 500ms, 60s or 2m");
      }
      if (millis < 0) {
        throw new IllegalArgumentException("must not be negative");
      }
      return Duration.ofMillis(millis);
    });
  }

  /** A memory size in MiB, written as people write it ("512m", "4g"); no unit means MiB. */
  public static ConfigOption<Integer> memoryMbOption(String key, String defaultValue, int minMb,
      String description) {
    return new ConfigOption<>(key, defaultValue, description, (conf, k, d) -> {
      double mb = size(conf.getTrimmed(k, d), StorageUnit.MB, "512m or 4g");
      if (mb < minMb) {
        throw new IllegalArgumentException("must be at least " + minMb + "m");
      }
      return (int) Math.ceil(mb);
    });
  }

  /** A size in bytes, written as people write it ("262144", "64m", "1g"); no unit means bytes. */
  public static ConfigOption<Long> bytesOption(String key, String defaultValue, long min,
      String description) {
    return new ConfigOption<>(key, defaultValue, description, (conf, k, d) -> {
      double bytes = size(conf.getTrimmed(k, d), StorageUnit.BYTES, "262144, 64m or 1g");
      if (bytes < min) {
        throw new IllegalArgumentException("must be at least " + min + " bytes");
      }
      return (long) Math.ceil(bytes);
    });
  }

  /**
   * {@code text} in {@code unit}: a plain number is already in {@code unit} (Hadoop's size
   * parser refuses one), anything else goes through Hadoop's parser ("64m", "4g", "1.5g").
   */
  private static double size(String text, StorageUnit unit, String examples) {
    try {
      if (text.matches("[0-9]+")) {
        return Long.parseLong(text);
      }
      Configuration probe = new Configuration(false);
      probe.set("size", text);
      return probe.getStorageSize("size", "0", unit);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("expected a size such as " + examples);
    }
  }

  @Override
  public String toString() {
    return key + " (default " + defaultText + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConfigOption<?> other && other.key.equals(key);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key);
  }
}
