package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.conf.ConfigOption;
import dev.tide.driver.conf.TideOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** conf/tide-site.xml, the admins' template, lists every setting with its true default. */
class TideSiteTemplateTest {
  @Test
  void templateListsEverySettingWithItsDefault() throws Exception {
    Path template = Path.of("..", "conf", "tide-site.xml");
    assertTrue(Files.exists(template), "missing " + template.toAbsolutePath());
    Configuration conf = new Configuration(false);
    conf.addResource(template.toUri().toURL());
    String text = Files.readString(template);
    List<ConfigOption<?>> all = new ArrayList<>(TideOptions.all());
    all.addAll(AmOptions.all());
    for (ConfigOption<?> option : all) {
      if (option == TideOptions.JOB || option == TideOptions.JOB_ARGS) {
        continue; // set by the client from its command line
      }
      assertTrue(text.contains("<name>" + option.key() + "</name>"),
          option.key() + " is missing from " + template);
      assertEquals(option.get(new Configuration(false)), option.get(conf),
          "default of " + option.key() + " in " + template);
    }
  }
}
