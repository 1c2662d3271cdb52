package dev.tide.queue;

import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.stringOption;

import dev.tide.conf.ConfigOption;
import dev.tide.conf.ConfigOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * The settings of one queue's {@link DripFeedOrderingPolicy}, parsed and validated in one place.
 *
 * <p>They are set as {@code yarn.scheduler.capacity.<queue-path>.ordering-policy.<key>} in
 * {@code capacity-scheduler.xml}; CapacityScheduler strips the prefix and hands the
 * {@code <key> -> value} map to {@code OrderingPolicy#configure(Map)}, which calls
 * {@link #fromProperties(Map)}. The options ({@link #OPTIONS}) carry the keys from
 * {@code ordering-policy.} on, which is how errors name them; docs/queue-policy.md and
 * conf/capacity-scheduler.xml are generated from them.
 *
 * @param startingTimeout how long an application may hold its AM container without any executor
 *     before it counts as Running anyway and the next application may start
 * @param maxStarting how many applications of the queue may be Starting (or Accepted and being
 *     offered their AM container) at the same time
 * @param skipTag an application tag (compared case-insensitively, as YARN lower-cases tags) that
 *     makes an application Running as soon as it is added; empty disables the opt-out
 */
public record QueuePolicySettings(Duration startingTimeout, int maxStarting, String skipTag) {

  /** What CapacityScheduler strips from the keys before it hands them to the policy. */
  static final String PREFIX = "ordering-policy.";

  /** Key of the starting timeout: a duration such as {@code 500ms}, {@code 30s}, {@code 5m}. */
  public static final String STARTING_TIMEOUT_KEY = "starting-timeout";
  /** Key of the number of applications that may be Starting at once (at least 1). */
  public static final String MAX_STARTING_KEY = "max-starting";
  /** Key of the opt-out application tag. */
  public static final String SKIP_TAG_KEY = "skip-tag";

  public static final ConfigOption<Duration> STARTING_TIMEOUT = durationOption(
      PREFIX + STARTING_TIMEOUT_KEY, "5m", TimeUnit.MILLISECONDS, "How long an application may"
      + " hold its AM container without any executor before it counts as Running and lets the"
      + " next application start. Written 500ms, 30s, 5m, 1h; a bare number is milliseconds. 0"
      + " stops the wait for executors (an application is Running as soon as it has its AM),"
      + " but it is not quite FIFO: Accepted applications are still offered their AM"
      + " max-starting at a time, oldest first, so when the oldest one cannot get its AM on a"
      + " node (its user is at the user limit, or the scheduler skips the application for that"
      + " node) younger ones are not tried on that node, where FIFO's queue moves on to them. To"
      + " get FIFO back, set the queue's ordering-policy to fifo.");
  public static final ConfigOption<Integer> MAX_STARTING = intOption(PREFIX + MAX_STARTING_KEY,
      1, 1, "How many applications may be Starting (or Accepted and being offered their AM) at"
      + " once. Raise it when AM start-up is slow compared with how long applications run, so"
      + " that starts overlap.");
  public static final ConfigOption<String> SKIP_TAG = stringOption(PREFIX + SKIP_TAG_KEY,
      "tide-queue-policy-skip", "Applications submitted with this tag count as Running from the"
      + " start and never hold up the queue. Use it for applications that never ask for more than"
      + " their AM (a driver in cluster mode that runs everything in the AM, a DistributedShell"
      + " with one container, an Oozie launcher). Compared case-insensitively (YARN lower-cases"
      + " tags). Empty disables the opt-out.");

  /** Every setting, in the order of the docs. */
  public static final List<ConfigOption<?>> OPTIONS =
      List.of(STARTING_TIMEOUT, MAX_STARTING, SKIP_TAG);

  /** Default starting timeout, as in the source design. */
  public static final Duration DEFAULT_STARTING_TIMEOUT = STARTING_TIMEOUT.defaultValue();
  /** Default of {@link #MAX_STARTING_KEY}. */
  public static final int DEFAULT_MAX_STARTING = MAX_STARTING.defaultValue();
  /** Default opt-out tag. */
  public static final String DEFAULT_SKIP_TAG = SKIP_TAG.defaultValue();

  public QueuePolicySettings {
    Objects.requireNonNull(startingTimeout, "startingTimeout");
    Objects.requireNonNull(skipTag, "skipTag");
    if (startingTimeout.isNegative()) {
      throw new IllegalArgumentException(
          STARTING_TIMEOUT.key() + " must not be negative: " + startingTimeout);
    }
    if (maxStarting < 1) {
      throw new IllegalArgumentException(MAX_STARTING.key() + " must be at least 1: " + maxStarting);
    }
    skipTag = skipTag.trim().toLowerCase(Locale.ROOT);
  }

  /** The defaults: 5 minutes, 1 Starting application, tag {@code tide-queue-policy-skip}. */
  public static QueuePolicySettings defaults() {
    return new QueuePolicySettings(DEFAULT_STARTING_TIMEOUT, DEFAULT_MAX_STARTING, DEFAULT_SKIP_TAG);
  }

  /**
   * Parses the settings from the map CapacityScheduler passes to {@code configure}; keys not
   * listed fall back to their defaults.
   *
   * @throws IllegalArgumentException naming each bad key ({@code ordering-policy.<key>}), its
   *     value and what is expected
   */
  public static QueuePolicySettings fromProperties(Map<String, String> properties) {
    Configuration conf = ConfigOptions.fromMap(properties, PREFIX);
    ConfigOptions.validate(conf, OPTIONS);
    return new QueuePolicySettings(STARTING_TIMEOUT.get(conf), MAX_STARTING.get(conf),
        SKIP_TAG.get(conf));
  }

  /** The keys of {@code properties} this policy does not know (probably typos), sorted. */
  public static Set<String> unknownKeys(Map<String, String> properties) {
    Set<String> unknown = new TreeSet<>();
    for (String key : ConfigOptions.unknownKeys(ConfigOptions.fromMap(properties, PREFIX), PREFIX,
        OPTIONS)) {
      unknown.add(key.substring(PREFIX.length()));
    }
    return unknown;
  }

  /** Whether the opt-out is enabled at all. */
  public boolean skipTagEnabled() {
    return !skipTag.isEmpty();
  }

  @Override
  public String toString() {
    return STARTING_TIMEOUT_KEY + "=" + startingTimeout.toMillis() + "ms, "
        + MAX_STARTING_KEY + "=" + maxStarting + ", "
        + SKIP_TAG_KEY + "=" + (skipTagEnabled() ? skipTag : "(disabled)");
  }
}
