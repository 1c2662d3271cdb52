package dev.tide.am;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;

/**
 * The final tracking URL the ApplicationMaster gives the ResourceManager when it unregisters:
 * where the application's tracking link points once it has ended (as Spark gives its history
 * server's address). Without one YARN shows {@code Tracking-URL : N/A} and its proxy sends the
 * link to the ResourceManager's page. {@code tide.history.url} with {@code {appId}} replaced when
 * set; otherwise the ResourceManager's page of the application ({@code <RM web
 * app>/cluster/app/<appId>}), which shows the final status and the diagnostics that end with the
 * application's summary and the history command.
 */
final class FinalTrackingUrl {
  static final String APP_ID_PLACEHOLDER = "{appId}";

  private FinalTrackingUrl() {}

  static String of(Configuration conf, ApplicationId appId) {
    String template = AmOptions.HISTORY_URL.get(conf);
    if (!template.isEmpty()) {
      return template.replace(APP_ID_PLACEHOLDER, appId.toString());
    }
    String rm = WebAppUtils.getRMWebAppURLWithScheme(conf);
    if (rm.contains("://0.0.0.0:")) {
      // Bound to every interface: the RM's host as other hosts reach it (this AM runs on a
      // NodeManager, not on the RM's host).
      rm = WebAppUtils.getResolvedRemoteRMWebAppURLWithScheme(conf);
    }
    return rm + "/cluster/app/" + appId;
  }
}
