package dev.tide.conf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.StorageUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One typed setting of any Tide module: its key, what a value looks like, its default (as a
 * person writes it), its description and its validation, in one place (as Flink's
 * {@code ConfigOption}). Values are parsed with Hadoop's own parsers
 * ({@link Configuration#getTimeDuration}, {@link Configuration#getStorageSize},
 * {@link Configuration#getInt}, {@link Configuration#getLong}), so durations and sizes are written
 * as everywhere in Hadoop: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}; {@code 64k},
 * {@code 48m}, {@code 1g}. A bare number is in the unit the key has always used (each option says
 * which), so configurations written before units were accepted keep their meaning.
 *
 * <p>{@link #get} throws an IllegalArgumentException that names the key, the bad value and what
 * is expected or allowed: {@code bad value for tide.shuffle.port = 'x': expected an integer},
 * {@code bad value for tide.shuffle.port = '70000': must be from 0 to 65535}. An option may have deprecated keys (old names); when the key itself is not set, the
 * first deprecated key that is set is read, and its use is logged once per process at WARN.
 *
 * <p>Options are immutable and thread-safe; the {@code with...} methods return changed copies.
 * This class lives in the dependency-free module {@code conf-options}, which the shuffle
 * service's NodeManager jar, the queue policy jar and the app jar each carry inside.
 *
 * @param <T> the value's type
 */
public final class ConfigOption<T> {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigOption.class);
  /** Deprecated keys already warned about in this process: one WARN each, not one per read. */
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
  private static final Pattern BARE_NUMBER = Pattern.compile("-?[0-9]+");

  /** Turns the (trimmed) text of a setting into a value. */
  @FunctionalInterface
  public interface Parser<T> {
    /** @throws IllegalArgumentException (or NumberFormatException) if it is not one */
    T parse(String text);
  }

  /** A requirement on parsed values, e.g. {@code must be at least 1}. */
  private record Check<T>(Predicate<T> test, String requirement) {}

  private final String key;
  private final String expected;
  private final String defaultText;
  private final String description;
  private final Parser<T> parser;
  private final List<Check<T>> checks;
  private final List<String> deprecatedKeys;

  private ConfigOption(String key, String expected, String defaultText, String description,
      Parser<T> parser, List<Check<T>> checks, List<String> deprecatedKeys) {
    this.key = Objects.requireNonNull(key, "key");
    this.expected = Objects.requireNonNull(expected, "expected");
    this.defaultText = Objects.requireNonNull(defaultText, "defaultText");
    this.description = Objects.requireNonNull(description, "description");
    this.parser = Objects.requireNonNull(parser, "parser");
    this.checks = List.copyOf(checks);
    this.deprecatedKeys = List.copyOf(deprecatedKeys);
  }

  /**
   * An option of any type. Prefer the typed factories below; this one is for a type of its own.
   *
   * @param expected what a value looks like, completing "expected ...": {@code "a decimal such
   *     as 0.5"}
   */
  public static <T> ConfigOption<T> of(String key, String expected, String defaultText,
      Parser<T> parser, String description) {
    return new ConfigOption<>(key, expected, defaultText, description, parser, List.of(),
        List.of());
  }

  public String key() {
    return key;
  }

  /** The default as a person would write it in a configuration file ("60s", "512m", "1"). */
  public String defaultText() {
    return defaultText;
  }

  public String description() {
    return description;
  }

  /** What a value looks like, completing "expected ..." ("an integer", "a duration such as ..."). */
  public String expected() {
    return expected;
  }

  /** Old names of this setting, still read when the key itself is not set. */
  public List<String> deprecatedKeys() {
    return deprecatedKeys;
  }

  /** The value of the default. */
  public T defaultValue() {
    return parse(key, defaultText);
  }

  /** Whether {@code conf} sets this option, under its key or a deprecated one. */
  public boolean isSet(Configuration conf) {
    return sourceKey(conf) != null;
  }

  /**
   * The value in {@code conf}, or the default when neither the key nor a deprecated key is set.
   *
   * @throws IllegalArgumentException naming the key, the bad value and what is expected
   */
  public T get(Configuration conf) {
    String source = sourceKey(conf);
    if (source == null) {
      return parse(key, defaultText);
    }
    if (!source.equals(key) && WARNED.add(source)) {
      LOG.warn("{} is deprecated; use {} instead (its value is read as that of {})", source, key,
          key);
    }
    return parse(source, conf.getTrimmed(source));
  }

  /** Checks {@code conf}'s value of this option; returns the error message, or null if valid. */
  public String check(Configuration conf) {
    try {
      get(conf);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The key whose value {@link #get} reads, or null when the default applies. */
  private String sourceKey(Configuration conf) {
    if (conf.get(key) != null) {
      return key;
    }
    for (String old : deprecatedKeys) {
      if (conf.get(old) != null) {
        return old;
      }
    }
    return null;
  }

  private T parse(String source, String text) {
    T value;
    try {
      value = parser.parse(text.trim());
    } catch (IllegalArgumentException e) {
      throw bad(source, text, "expected " + expected);
    }
    for (Check<T> check : checks) {
      if (!check.test().test(value)) {
        throw bad(source, text, check.requirement());
      }
    }
    return value;
  }

  private IllegalArgumentException bad(String source, String text, String reason) {
    String alias = source.equals(key) ? "" : " (deprecated name of " + key + ")";
    return new IllegalArgumentException(
        "bad value for " + source + alias + " = '" + text + "': " + reason);
  }

  /** This option with {@code keys} as its old names (read when the key is not set). */
  public ConfigOption<T> withDeprecatedKeys(String... keys) {
    List<String> all = new ArrayList<>(deprecatedKeys);
    all.addAll(Arrays.asList(keys));
    return new ConfigOption<>(key, expected, defaultText, description, parser, checks, all);
  }

  /**
   * This option with one more requirement on its values.
   *
   * @param requirement what the error says when {@code test} fails: {@code "must be positive"}
   */
  public ConfigOption<T> withCheck(Predicate<T> test, String requirement) {
    List<Check<T>> all = new ArrayList<>(checks);
    all.add(new Check<>(test, requirement));
    return new ConfigOption<>(key, expected, defaultText, description, parser, all,
        deprecatedKeys);
  }

  /** This option with another default (as a person writes it). */
  public ConfigOption<T> withDefault(String text) {
    return new ConfigOption<>(key, expected, text, description, parser, checks, deprecatedKeys);
  }

  // ---- typed factories ----

  public static ConfigOption<Integer> intOption(String key, int defaultValue, int min,
      String description) {
    return intOption(key, defaultValue, min, Integer.MAX_VALUE, description);
  }

  /** An integer from {@code min} to {@code max} (inclusive), read as Hadoop's getInt reads. */
  public static ConfigOption<Integer> intOption(String key, int defaultValue, int min, int max,
      String description) {
    return of(key, "an integer", Integer.toString(defaultValue),
        text -> hadoop(key, text).getInt(key, 0), description)
        .withCheck(v -> v >= min && v <= max, range(min, max, Integer.MAX_VALUE, ""));
  }

  private static String range(long min, long max, long unbounded, String unit) {
    return max == unbounded ? "must be at least " + min + unit
        : "must be from " + min + " to " + max + unit;
  }

  /** A long from {@code min} to {@code max} (inclusive), read as Hadoop's getLong reads. */
  public static ConfigOption<Long> longOption(String key, long defaultValue, long min, long max,
      String description) {
    return of(key, "an integer", Long.toString(defaultValue),
        text -> hadoop(key, text).getLong(key, 0), description)
        .withCheck(v -> v >= min && v <= max, range(min, max, Long.MAX_VALUE, ""));
  }

  /** A decimal number such as {@code 0.2}; use {@link #withCheck} for its range. */
  public static ConfigOption<Double> doubleOption(String key, double defaultValue,
      String description) {
    return of(key, "a decimal number such as 0.5", Double.toString(defaultValue), text -> {
      double value = Double.parseDouble(text);
      if (Double.isNaN(value) || Double.isInfinite(value)) {
        throw new IllegalArgumentException(text);
      }
      return value;
    }, description);
  }

  /** {@code true} or {@code false} (any case); anything else is refused, not read as false. */
  public static ConfigOption<Boolean> booleanOption(String key, boolean defaultValue,
      String description) {
    return of(key, "true or false", Boolean.toString(defaultValue), text -> {
      if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException(text);
      }
      return Boolean.parseBoolean(text);
    }, description);
  }

  /** Any text, trimmed. */
  public static ConfigOption<String> stringOption(String key, String defaultValue,
      String description) {
    return of(key, "text", defaultValue, text -> text, description);
  }

  /** One of {@code type}'s constants, written in any case; its default is written lower-case. */
  public static <E extends Enum<E>> ConfigOption<E> enumOption(String key, Class<E> type,
      E defaultValue, String description) {
    E[] values = type.getEnumConstants();
    String names = Arrays.stream(values).map(ConfigOption::lowerName)
        .collect(Collectors.joining(", "));
    // Hadoop's getEnum is case-sensitive; settings are written lower-case.
    return of(key, "one of " + names, lowerName(defaultValue),
        text -> hadoop(key, text.toUpperCase(Locale.ROOT)).getEnum(key, defaultValue),
        description);
  }

  private static String lowerName(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /** A duration ({@code 500ms}, {@code 60s}, {@code 2m}, {@code 1h}); a bare number is seconds. */
  public static ConfigOption<Duration> durationOption(String key, String defaultValue,
      String description) {
    return durationOption(key, defaultValue, TimeUnit.SECONDS, description);
  }

  /**
   * A duration, not negative: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 1d} (also
   * {@code ns}, {@code us}, and {@code min} for minutes), read with Hadoop's getTimeDuration.
   *
   * @param bareUnit the unit of a number written without one (the unit the key always used)
   */
  public static ConfigOption<Duration> durationOption(String key, String defaultValue,
      TimeUnit bareUnit, String description) {
    String expected = "a duration such as 500ms, 30s or 2m (a bare number is "
        + bareUnit.name().toLowerCase(Locale.ROOT) + ")";
    return of(key, expected, defaultValue, text -> duration(key, text, bareUnit), description)
        .withCheck(d -> !d.isNegative(), "must not be negative");
  }

  private static Duration duration(String key, String text, TimeUnit bareUnit) {
    String compact = text.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
    if (BARE_NUMBER.matcher(compact).matches()) {
      // Hadoop would log "No unit for ..." at WARN on every read of an old-style value.
      return Duration.ofNanos(bareUnit.toNanos(Long.parseLong(compact)));
    }
    if (compact.endsWith("min")) {
      compact = compact.substring(0, compact.length() - 2); // "5min" -> "5m"
    }
    long nanos = hadoop(key, compact).getTimeDuration(key, 0L, bareUnit, TimeUnit.NANOSECONDS);
    return Duration.ofNanos(nanos);
  }

  /** A memory size in MiB ({@code 512m}, {@code 4g}); a bare number is MiB; rounded up. */
  public static ConfigOption<Integer> memoryMbOption(String key, String defaultValue, int minMb,
      String description) {
    return of(key, "a size such as 512m or 4g (a bare number is MiB)", defaultValue,
        text -> (int) Math.ceil(size(key, text, StorageUnit.MB)), description)
        .withCheck(mb -> mb >= minMb, "must be at least " + minMb + "m");
  }

  /** A size in bytes ({@code 262144}, {@code 64k}, {@code 64m}, {@code 1g}); a bare number is bytes. */
  public static ConfigOption<Long> bytesOption(String key, String defaultValue, long min,
      String description) {
    return bytesOption(key, defaultValue, min, Long.MAX_VALUE, description);
  }

  /** A size in bytes, from {@code min} to {@code max}; a bare number is bytes; rounded up. */
  public static ConfigOption<Long> bytesOption(String key, String defaultValue, long min,
      long max, String description) {
    return of(key, "a size such as 262144, 64k, 64m or 1g (a bare number is bytes)",
        defaultValue, text -> (long) Math.ceil(size(key, text, StorageUnit.BYTES)), description)
        .withCheck(b -> b >= min && b <= max, range(min, max, Long.MAX_VALUE, " bytes"));
  }

  /**
   * {@code text} in {@code unit}: a bare number is already in {@code unit} (Hadoop's size parser
   * refuses one), anything else goes through Hadoop's getStorageSize ("64m", "4g", "1.5g").
   */
  private static double size(String key, String text, StorageUnit unit) {
    if (BARE_NUMBER.matcher(text).matches()) {
      return Long.parseLong(text);
    }
    try {
      return hadoop(key, text).getStorageSize(key, "0", unit);
    } catch (RuntimeException e) { // Hadoop throws several kinds for bad sizes
      throw new IllegalArgumentException(text, e);
    }
  }

  /** A Configuration holding just {@code key = text}, so Hadoop's parser reads exactly it. */
  private static Configuration hadoop(String key, String text) {
    Configuration probe = new Configuration(false);
    probe.set(key, text);
    return probe;
  }

  @Override
  public String toString() {
    return key + " (default " + (defaultText.isEmpty() ? "empty" : defaultText) + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConfigOption<?> other && other.key.equals(key);
  }

  @Override
  public int hashCode() {
    return key.hashCode();
  }
}
