package dev.tide.driver.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.conf.ConfigOption;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Memory settings as a user writes them with -D or in tide-site.xml. */
class MemoryOptionsTest {
  private static final ConfigOption<Integer> MEMORY = AppOptions.EXECUTOR_MEMORY_MB;

  private static int memory(String value) {
    Configuration conf = new Configuration(false);
    conf.set(MEMORY.key(), value);
    return MEMORY.get(conf);
  }

  @Test
  void aPlainNumberIsMebibytesAndUnitsAreHonoured() {
    assertEquals(512, MEMORY.get(new Configuration(false)));
    assertEquals(768, memory("768"));
    assertEquals(768, memory(" 768 "));
    assertEquals(2048, memory("2g"));
    assertEquals(2048, memory("2G"));
    assertEquals(300, memory("300m"));
    assertEquals(48, memory("49152k"));
    assertEquals(1536, memory("1.5g"));
  }

  @Test
  void badOrTooSmallValuesNameTheKeyAndTheValue() {
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> memory("16"));
    assertTrue(small.getMessage().contains(MEMORY.key() + " = '16'"), small.getMessage());
    assertTrue(small.getMessage().contains("at least 32m"), small.getMessage());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> memory("lots"));
    assertTrue(bad.getMessage().contains(MEMORY.key() + " = 'lots'"), bad.getMessage());
    assertTrue(bad.getMessage().contains("512m"), bad.getMessage());
  }
}
