package dev.tide.driver.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The wordcount settings as a user writes them with -D or in tide-site.xml. */
class WordCountOptionsTest {
  private static Configuration with(String key, String value) {
    Configuration conf = new Configuration(false);
    conf.set(key, value);
    return conf;
  }

  @Test
  void splitSizeTakesPlainBytesOrSizesWithUnits() {
    String key = TideOptions.WORDCOUNT_SPLIT_SIZE.key();
    assertEquals(0L, TideOptions.WORDCOUNT_SPLIT_SIZE.get(new Configuration(false)));
    assertEquals(262_144L, TideOptions.WORDCOUNT_SPLIT_SIZE.get(with(key, "262144")));
    assertEquals(64L << 20, TideOptions.WORDCOUNT_SPLIT_SIZE.get(with(key, "64m")));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> TideOptions.WORDCOUNT_SPLIT_SIZE.get(with(key, "lots")));
    assertTrue(bad.getMessage().contains(key + " = 'lots'"), bad.getMessage());
  }

  @Test
  void reducersDefaultToTwoAndMustBePositive() {
    String key = TideOptions.WORDCOUNT_REDUCERS.key();
    assertEquals(2, TideOptions.WORDCOUNT_REDUCERS.get(new Configuration(false)));
    assertEquals(3, TideOptions.WORDCOUNT_REDUCERS.get(with(key, "3")));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> TideOptions.WORDCOUNT_REDUCERS.get(with(key, "0")));
    assertTrue(bad.getMessage().contains(key), bad.getMessage());
  }
}
