package dev.tide.conf;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.bytesOption;
import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.enumOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.memoryMbOption;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class ConfigOptionTest {
  private static final ConfigOption<Duration> TIMEOUT_MS =
      durationOption("t.timeout", "2m", TimeUnit.MILLISECONDS, "a timeout")
          .withDeprecatedKeys("t.timeout.ms");
  private static final ConfigOption<Duration> TIMEOUT_S = durationOption("t.wait", "1s", "a wait");
  private static final ConfigOption<Long> SIZE =
      bytesOption("t.size", "48m", 1, 1L << 40, "a size").withDeprecatedKeys("t.size.bytes");
  private static final ConfigOption<Integer> THREADS = intOption("t.threads", 2, 1, 1024, "threads");

  private enum Mode { LOCALITY, SPREAD, PACK }

  private static final ConfigOption<Mode> MODE =
      enumOption("t.mode", Mode.class, Mode.LOCALITY, "where");

  private static Configuration conf(String... keyValues) {
    Configuration conf = new Configuration(false);
    for (int i = 0; i < keyValues.length; i += 2) {
      conf.set(keyValues[i], keyValues[i + 1]);
    }
    return conf;
  }

  private static <T> T read(ConfigOption<T> option, String text) {
    return option.get(conf(option.key(), text));
  }

  private static String error(ConfigOption<?> option, String... keyValues) {
    return assertThrows(IllegalArgumentException.class, () -> option.get(conf(keyValues)))
        .getMessage();
  }

  @Test
  void durationsAreWrittenAsPeopleWriteThem() {
    assertEquals(Duration.ofMinutes(2), TIMEOUT_MS.get(conf()));
    assertEquals(Duration.ofMillis(500), read(TIMEOUT_MS, "500ms"));
    assertEquals(Duration.ofSeconds(30), read(TIMEOUT_MS, "30s"));
    assertEquals(Duration.ofSeconds(30), read(TIMEOUT_MS, " 30S "));
    assertEquals(Duration.ofMinutes(2), read(TIMEOUT_MS, "2m"));
    assertEquals(Duration.ofMinutes(5), read(TIMEOUT_MS, "5 min"));
    assertEquals(Duration.ofHours(1), read(TIMEOUT_MS, "1h"));
    assertEquals(Duration.ofDays(2), read(TIMEOUT_MS, "2d"));
    assertEquals(Duration.ofNanos(1500), read(TIMEOUT_MS, "1500ns"));
    assertEquals(Duration.ofMillis(3), read(TIMEOUT_MS, "3000us"));
  }

  @Test
  void aBareNumberKeepsTheUnitTheKeyAlwaysUsed() {
    assertEquals(Duration.ofMillis(120000), read(TIMEOUT_MS, "120000"));
    assertEquals(Duration.ofSeconds(60), read(TIMEOUT_S, "60"));
    assertEquals(1024L, read(SIZE, "1024"));
    ConfigOption<Integer> heap = memoryMbOption("t.heap", "512m", 32, "heap");
    assertEquals(768, read(heap, "768"));
  }

  @Test
  void sizesAreWrittenAsPeopleWriteThem() {
    assertEquals(48L << 20, SIZE.get(conf()));
    assertEquals(64L << 10, read(SIZE, "64k"));
    assertEquals(64L << 20, read(SIZE, "64m"));
    assertEquals(1L << 30, read(SIZE, "1g"));
    assertEquals(1L << 30, read(SIZE, "1G"));
    assertEquals(3L << 29, read(SIZE, "1.5g"));
    ConfigOption<Integer> heap = memoryMbOption("t.heap", "512m", 32, "heap");
    assertEquals(2048, read(heap, "2g"));
    assertEquals(48, read(heap, "49152k"));
  }

  @Test
  void deprecatedKeysAreReadWhenTheKeyIsNotSet() {
    assertEquals(Duration.ofMillis(7000), TIMEOUT_MS.get(conf("t.timeout.ms", "7000")));
    assertEquals(Duration.ofSeconds(9),
        TIMEOUT_MS.get(conf("t.timeout.ms", "7000", "t.timeout", "9s")));
    assertTrue(TIMEOUT_MS.isSet(conf("t.timeout.ms", "1")));
    assertFalse(TIMEOUT_MS.isSet(conf()));
    assertEquals(4096L, SIZE.get(conf("t.size.bytes", "4096")));
    assertEquals(List.of("t.size.bytes"), SIZE.deprecatedKeys());
    String e = error(SIZE, "t.size.bytes", "lots");
    assertEquals("bad value for t.size.bytes (deprecated name of t.size) = 'lots': expected a size"
        + " such as 262144, 64k, 64m or 1g (a bare number is bytes)", e);
  }

  @Test
  void aDeprecatedKeyIsLoggedOnceAtWarn() {
    ConfigOption<Long> option = bytesOption("t.logged", "1m", 0, "logged")
        .withDeprecatedKeys("t.logged.bytes");
    List<String> warnings = new java.util.ArrayList<>();
    org.apache.log4j.Logger logger = org.apache.log4j.Logger.getLogger(ConfigOption.class);
    org.apache.log4j.AppenderSkeleton appender = new org.apache.log4j.AppenderSkeleton() {
      @Override
      protected void append(org.apache.log4j.spi.LoggingEvent event) {
        warnings.add(event.getLevel() + " " + event.getRenderedMessage());
      }

      @Override
      public void close() {}

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    logger.addAppender(appender);
    try {
      option.get(conf("t.logged.bytes", "10"));
      option.get(conf("t.logged.bytes", "20"));
      option.get(conf("t.logged", "30"));
    } finally {
      logger.removeAppender(appender);
    }
    assertEquals(List.of("WARN t.logged.bytes is deprecated; use t.logged instead (its value is"
        + " read as that of t.logged)"), warnings);
  }

  @Test
  void badValuesNameTheKeyTheValueAndWhatIsExpected() {
    assertEquals("bad value for t.threads = 'many': expected an integer",
        error(THREADS, "t.threads", "many"));
    assertEquals("bad value for t.threads = '0': must be from 1 to 1024",
        error(THREADS, "t.threads", "0"));
    assertEquals("bad value for t.timeout = 'soon': expected a duration such as 500ms, 30s or 2m"
        + " (a bare number is milliseconds)", error(TIMEOUT_MS, "t.timeout", "soon"));
    assertTrue(error(TIMEOUT_MS, "t.timeout", "5 weeks").contains("'5 weeks'"));
    assertEquals("bad value for t.timeout = '-1s': must not be negative",
        error(TIMEOUT_MS, "t.timeout", "-1s"));
    assertEquals("bad value for t.size = '0': must be from 1 to 1099511627776 bytes",
        error(SIZE, "t.size", "0"));
    ConfigOption<Boolean> flag = booleanOption("t.flag", false, "a flag");
    assertEquals("bad value for t.flag = 'yes': expected true or false",
        error(flag, "t.flag", "yes"));
    assertEquals(true, read(flag, "TRUE"));
    ConfigOption<Duration> positive = TIMEOUT_S.withCheck(d -> !d.isZero(), "must be positive");
    assertEquals("bad value for t.wait = '0s': must be positive",
        error(positive, "t.wait", "0s"));
  }

  @Test
  void enumsAreReadInAnyCaseAndListTheirValues() {
    assertEquals(Mode.LOCALITY, MODE.get(conf()));
    assertEquals("locality", MODE.defaultText());
    assertEquals(Mode.SPREAD, read(MODE, "spread"));
    assertEquals(Mode.PACK, read(MODE, " PACK "));
    assertEquals("bad value for t.mode = 'scatter': expected one of locality, spread, pack",
        error(MODE, "t.mode", "scatter"));
  }

  @Test
  void validateReportsEveryBadKeyAndUnknownKeysAreFound() {
    Configuration conf = conf("t.threads", "0", "t.mode", "x", "t.wait", "3s", "t.thraeds", "4");
    List<ConfigOption<?>> all = List.of(THREADS, MODE, TIMEOUT_S, SIZE, TIMEOUT_MS);
    String e = assertThrows(IllegalArgumentException.class,
        () -> ConfigOptions.validate(conf, all)).getMessage();
    assertTrue(e.contains("t.threads = '0'") && e.contains("t.mode = 'x'"), e);
    assertEquals(Set.of("t.thraeds"), ConfigOptions.unknownKeys(conf, "t.", all));
    assertNull(TIMEOUT_S.check(conf));
    assertTrue(ConfigOptions.describe(conf, all).contains("t.wait=3000ms"),
        ConfigOptions.describe(conf, all));
  }

  @Test
  void fromMapPrefixesTheKeys() {
    Configuration conf = ConfigOptions.fromMap(Map.of("timeout", "3s"), "t.");
    assertEquals(Duration.ofSeconds(3), TIMEOUT_MS.get(conf));
  }
}
