package dev.tide.queue;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of one queue's {@link DripFeedOrderingPolicy}, parsed and validated in one place.
 *
 * <p>They are set as {@code yarn.scheduler.capacity.<queue-path>.ordering-policy.<key>} in
 * {@code capacity-scheduler.xml}; CapacityScheduler strips the prefix and hands the
 * {@code <key> -> value} map to {@code OrderingPolicy#configure(Map)}, which calls
 * {@link #fromProperties(Map)}.
 *
 * @param startingTimeout how long an application may hold its AM container without any executor
 *     before it counts as Running anyway and the next application may start
 * @param maxStarting how many applications of the queue may be Starting (or Accepted and being
 *     offered their AM container) at the same time
 * @param skipTag an application tag (compared case-insensitively, as YARN lower-cases tags) that
 *     makes an application Running as soon as it is added; empty disables the opt-out
 */
public record QueuePolicySettings(Duration startingTimeout, int maxStarting, String skipTag) {

  /** Key of the starting timeout: a duration such as {@code 500ms}, {@code 30s}, {@code 5m}. */
  public static final String STARTING_TIMEOUT_KEY = "starting-timeout";
  /** Default starting timeout, as in the source design. */
  public static final Duration DEFAULT_STARTING_TIMEOUT = Duration.ofMinutes(5);

  /** Key of the number of applications that may be Starting at once (at least 1). */
  public static final String MAX_STARTING_KEY = "max-starting";
  /** Default of {@link #MAX_STARTING_KEY}. */
  public static final int DEFAULT_MAX_STARTING = 1;

  /** Key of the opt-out application tag. */
  public static final String SKIP_TAG_KEY = "skip-tag";
  /** Default opt-out tag. */
  public static final String DEFAULT_SKIP_TAG = "tide-queue-policy-skip";

  private static final Set<String> KNOWN_KEYS =
      Set.of(STARTING_TIMEOUT_KEY, MAX_STARTING_KEY, SKIP_TAG_KEY);

  public QueuePolicySettings {
    Objects.requireNonNull(startingTimeout, "startingTimeout");
    Objects.requireNonNull(skipTag, "skipTag");
    if (startingTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "ordering-policy." + STARTING_TIMEOUT_KEY + " must not be negative: " + startingTimeout);
    }
    if (maxStarting < 1) {
      throw new IllegalArgumentException(
          "ordering-policy." + MAX_STARTING_KEY + " must be at least 1: " + maxStarting);
    }
    skipTag = skipTag.trim().toLowerCase(Locale.ROOT);
  }

  /** The defaults: 5 minutes, 1 Starting application, tag {@value #DEFAULT_SKIP_TAG}. */
  public static QueuePolicySettings defaults() {
    return new QueuePolicySettings(DEFAULT_STARTING_TIMEOUT, DEFAULT_MAX_STARTING, DEFAULT_SKIP_TAG);
  }

  /**
   * Parses the settings from the map CapacityScheduler passes to {@code configure}; keys not
   * listed fall back to their defaults.
   *
   * @throws IllegalArgumentException naming the key and the bad value
   */
  public static QueuePolicySettings fromProperties(Map<String, String> properties) {
    Duration timeout = DEFAULT_STARTING_TIMEOUT;
    int maxStarting = DEFAULT_MAX_STARTING;
    String skipTag = DEFAULT_SKIP_TAG;
    String value = properties.get(STARTING_TIMEOUT_KEY);
    if (value != null) {
      timeout = parseDuration(STARTING_TIMEOUT_KEY, value);
    }
    value = properties.get(MAX_STARTING_KEY);
    if (value != null) {
      try {
        maxStarting = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "ordering-policy." + MAX_STARTING_KEY + " is not an integer: '" + value + "'", e);
      }
    }
    value = properties.get(SKIP_TAG_KEY);
    if (value != null) {
      skipTag = value;
    }
    return new QueuePolicySettings(timeout, maxStarting, skipTag);
  }

  /** The keys of {@code properties} this policy does not know (probably typos), sorted. */
  public static Set<String> unknownKeys(Map<String, String> properties) {
    Set<String> unknown = new TreeSet<>(properties.keySet());
    unknown.removeAll(KNOWN_KEYS);
    return unknown;
  }

  /** Whether the opt-out is enabled at all. */
  public boolean skipTagEnabled() {
    return !skipTag.isEmpty();
  }

  /**
   * Parses a duration with a unit suffix ({@code ms}, {@code s}, {@code m}, {@code h},
   * {@code d}); a bare number is milliseconds.
   */
  static Duration parseDuration(String key, String text) {
    String trimmed = text.trim().toLowerCase(Locale.ROOT);
    int unitStart = 0;
    while (unitStart < trimmed.length() && Character.isDigit(trimmed.charAt(unitStart))) {
      unitStart++;
    }
    if (unitStart == 0) {
      throw new IllegalArgumentException(
          "ordering-policy." + key + " is not a duration such as 30s or 5m: '" + text + "'");
    }
    long amount;
    try {
      amount = Long.parseLong(trimmed.substring(0, unitStart));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "ordering-policy." + key + " is out of range: '" + text + "'", e);
    }
    String unit = trimmed.substring(unitStart).trim();
    switch (unit) {
      case "":
      case "ms":
        return Duration.ofMillis(amount);
      case "s":
        return Duration.ofSeconds(amount);
      case "m":
      case "min":
        return Duration.ofMinutes(amount);
      case "h":
        return Duration.ofHours(amount);
      case "d":
        return Duration.ofDays(amount);
      default:
        throw new IllegalArgumentException("ordering-policy." + key + " has an unknown unit '"
            + unit + "' (use ms, s, m, h or d): '" + text + "'");
    }
  }

  @Override
  public String toString() {
    return STARTING_TIMEOUT_KEY + "=" + startingTimeout.toMillis() + "ms, "
        + MAX_STARTING_KEY + "=" + maxStarting + ", "
        + SKIP_TAG_KEY + "=" + (skipTagEnabled() ? skipTag : "(disabled)");
  }
}
