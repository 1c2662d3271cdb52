package dev.tide.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QueuePolicySettingsTest {

  private static Duration timeout(String text) {
    return QueuePolicySettings.fromProperties(Map.of("starting-timeout", text)).startingTimeout();
  }

  @Test
  void defaultsMatchTheDesign() {
    QueuePolicySettings settings = QueuePolicySettings.fromProperties(Map.of());
    assertEquals(Duration.ofMinutes(5), settings.startingTimeout());
    assertEquals(1, settings.maxStarting());
    assertEquals("tide-queue-policy-skip", settings.skipTag());
    assertEquals(QueuePolicySettings.defaults(), settings);
  }

  @Test
  void parsesEveryKey() {
    QueuePolicySettings settings = QueuePolicySettings.fromProperties(Map.of(
        "starting-timeout", "90s", "max-starting", " 2 ", "skip-tag", " Short-Lived "));
    assertEquals(Duration.ofSeconds(90), settings.startingTimeout());
    assertEquals(2, settings.maxStarting());
    assertEquals("short-lived", settings.skipTag(), "tags compare lower-case, as YARN stores them");
    assertTrue(settings.skipTagEnabled());
  }

  @Test
  void durationsTakeUnitsAndBareNumbersAreMillis() {
    assertEquals(Duration.ofMillis(750), timeout("750"));
    assertEquals(Duration.ofMillis(750), timeout("750ms"));
    assertEquals(Duration.ofSeconds(3), timeout("3s"));
    assertEquals(Duration.ofMinutes(5), timeout("5m"));
    assertEquals(Duration.ofMinutes(5), timeout("5 min"));
    assertEquals(Duration.ofHours(1), timeout("1H"));
    assertEquals(Duration.ofDays(2), timeout("2d"));
  }

  @Test
  void badValuesNameTheKeyAndTheValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> QueuePolicySettings.fromProperties(Map.of("starting-timeout", "soon")));
    assertTrue(e.getMessage().contains("starting-timeout") && e.getMessage().contains("soon"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> QueuePolicySettings.fromProperties(Map.of("starting-timeout", "5 weeks")));
    assertTrue(e.getMessage().contains("weeks"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> QueuePolicySettings.fromProperties(Map.of("max-starting", "0")));
    assertTrue(e.getMessage().contains("max-starting") && e.getMessage().contains("0"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> QueuePolicySettings.fromProperties(Map.of("max-starting", "one")));
    assertTrue(e.getMessage().contains("'one'"), e.getMessage());
    assertEquals("bad value for ordering-policy.starting-timeout = 'soon': expected a duration"
        + " such as 500ms, 30s or 2m (a bare number is milliseconds)",
        assertThrows(IllegalArgumentException.class, () -> QueuePolicySettings.fromProperties(
            Map.of("starting-timeout", "soon"))).getMessage());
  }

  @Test
  void emptySkipTagDisablesTheOptOut() {
    assertFalse(QueuePolicySettings.fromProperties(Map.of("skip-tag", "")).skipTagEnabled());
  }

  @Test
  void reportsUnknownKeys() {
    assertEquals(Set.of("max-startng"), QueuePolicySettings.unknownKeys(
        Map.of("max-startng", "2", "starting-timeout", "1m")));
  }
}
