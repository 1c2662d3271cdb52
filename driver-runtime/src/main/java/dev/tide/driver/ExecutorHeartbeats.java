package dev.tide.driver;

import dev.tide.app.AppOptions;
import dev.tide.driver.conf.TideOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * When the driver last heard from each registered executor, and which have been silent past
 * {@code tide.executor.heartbeatTimeout}. An executor's TCP connection can stay open while its
 * JVM is stopped (SIGSTOP), frozen or cut off, so a closed channel alone never notices it; every
 * message of the executor (its heartbeats above all) counts as a sign of life.
 *
 * <p>Not thread-safe: owned by the driver's event loop. Times are the driver clock's millis.
 */
public final class ExecutorHeartbeats {
  /** An executor declared lost: where it ran and how long it had been silent. */
  record Silent(String executorId, String host, long silentMillis) {}

  private record Heard(String host, long atMillis) {}

  private final Duration timeout;
  private final Map<String, Heard> lastHeard = new LinkedHashMap<>();

  ExecutorHeartbeats(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * The settings' timeout, checked against the interval.
   *
   * @throws IllegalArgumentException naming both keys when the timeout is not longer than the
   *     interval (an executor would be declared lost between two of its heartbeats)
   */
  static ExecutorHeartbeats from(Configuration conf) {
    Duration interval = AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.get(conf);
    Duration timeout = TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.get(conf);
    if (timeout.compareTo(interval) <= 0) {
      throw new IllegalArgumentException(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key() + " = "
          + conf.get(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(),
              TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.defaultText())
          + " must be longer than " + AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.key() + " = "
          + conf.get(AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.key(),
              AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.defaultText())
          + " (several heartbeats should fit in the timeout)");
    }
    return new ExecutorHeartbeats(timeout);
  }

  /**
   * Checks the heartbeat settings together, as the client does before submitting.
   *
   * @throws IllegalArgumentException as {@link #from}
   */
  public static void check(Configuration conf) {
    from(conf);
  }

  /** The executor registered from {@code host}: the first sign of life. */
  void registered(String executorId, String host, long nowMillis) {
    lastHeard.put(executorId, new Heard(host, nowMillis));
  }

  /** A message from a registered executor arrived; unknown ids are ignored. */
  void heard(String executorId, long nowMillis) {
    lastHeard.computeIfPresent(executorId, (id, h) -> new Heard(h.host(), nowMillis));
  }

  /** The executor is gone (for whatever reason): it is no longer watched. */
  void removed(String executorId) {
    lastHeard.remove(executorId);
  }

  /**
   * The executors silent for longer than the timeout, oldest registration first; they are no
   * longer watched once returned.
   */
  List<Silent> expire(long nowMillis) {
    List<Silent> silent = new ArrayList<>();
    for (Iterator<Map.Entry<String, Heard>> it = lastHeard.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Heard> e = it.next();
      long silentMillis = nowMillis - e.getValue().atMillis();
      if (silentMillis > timeout.toMillis()) {
        silent.add(new Silent(e.getKey(), e.getValue().host(), silentMillis));
        it.remove();
      }
    }
    return silent;
  }

  /** Why {@code s} was removed, as the event log and the UI show it. */
  String reason(Silent s) {
    return "lost: no heartbeat for " + silentSeconds(s) + " s ("
        + TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key() + " = " + describe(timeout) + ")";
  }

  /** Whole seconds, rounded up: an executor lost after 5.2 s of a 5 s timeout shows 6 s. */
  static long silentSeconds(Silent s) {
    return (s.silentMillis() + 999) / 1000;
  }

  private static String describe(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }
}
