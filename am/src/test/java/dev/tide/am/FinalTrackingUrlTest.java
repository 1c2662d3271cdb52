package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.Test;

/** Where an ended application's tracking link points (its final tracking URL). */
class FinalTrackingUrlTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1_700_000_000_000L, 42);

  @Test
  void theHistoryUrlTemplateGetsTheApplicationId() {
    Configuration conf = new Configuration(false);
    conf.set("tide.history.url", "https://reports.example.com/tide/{appId}.html");
    assertEquals("https://reports.example.com/tide/application_1700000000000_0042.html",
        FinalTrackingUrl.of(conf, APP));
  }

  @Test
  void withoutOneItIsTheResourceManagersPageOfTheApplication() {
    Configuration conf = new Configuration(false);
    conf.set("yarn.resourcemanager.webapp.address", "rm.example.com:8088");
    assertEquals("http://rm.example.com:8088/cluster/app/application_1700000000000_0042",
        FinalTrackingUrl.of(conf, APP));
  }

  @Test
  void aHistoryUrlThatIsNotHttpIsRefusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("tide.history.url", "reports/{appId}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AmOptions.validate(conf));
    assertTrue(e.getMessage().contains("tide.history.url"), e.getMessage());
  }
}
