package dev.tide.am;

import dev.tide.am.web.ViewAccess;
import dev.tide.conf.ConfigOption;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils;
import org.apache.hadoop.yarn.api.records.ApplicationAccessType;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The application's YARN ACLs, from {@link AmOptions#VIEW_ACLS} and its groups (VIEW_APP: the
 * web UI, the ResourceManager's pages, {@code yarn logs}) and {@link AmOptions#MODIFY_ACLS} and
 * its groups (MODIFY_APP: kill). The client sets them in the AM's launch context, the AM in every
 * executor's (a NodeManager takes an application's ACLs from the first of its containers it
 * starts), and the AM's web UI applies the same view ACL ({@link #viewAccess}); YARN enforces
 * them when {@code yarn.acl.enable} is true. The submitting user and YARN's admins always have
 * both. Stateless.
 */
public final class ApplicationAcls {
  private ApplicationAcls() {}

  /** VIEW_APP and MODIFY_APP in Hadoop's ACL syntax, for a container launch context. */
  public static Map<ApplicationAccessType, String> forYarn(Configuration conf) {
    return Map.of(ApplicationAccessType.VIEW_APP, view(conf).text(),
        ApplicationAccessType.MODIFY_APP,
        acl(conf, AmOptions.MODIFY_ACLS, AmOptions.MODIFY_ACLS_GROUPS).text());
  }

  /**
   * Who may read the AM's web UI: {@code yarn.acl.enable} and {@code yarn.admin.acl} of the AM's
   * configuration (the cluster's), the view ACL of {@link #forYarn}, and {@code owner}.
   */
  public static ViewAccess viewAccess(Configuration conf, String application, String owner) {
    boolean enabled = conf.getBoolean(YarnConfiguration.YARN_ACL_ENABLE,
        YarnConfiguration.DEFAULT_YARN_ACL_ENABLE);
    return new ViewAccess(enabled, application, owner, view(conf),
        ViewAccess.Acl.parse(conf.get(YarnConfiguration.YARN_ADMIN_ACL,
            YarnConfiguration.DEFAULT_YARN_ADMIN_ACL)),
        AmOptions.VIEW_ACLS.key() + " (users) or " + AmOptions.VIEW_ACLS_GROUPS.key()
            + " (groups)");
  }

  private static ViewAccess.Acl view(Configuration conf) {
    return acl(conf, AmOptions.VIEW_ACLS, AmOptions.VIEW_ACLS_GROUPS);
  }

  private static ViewAccess.Acl acl(Configuration conf, ConfigOption<String> users,
      ConfigOption<String> groups) {
    return ViewAccess.Acl.of(names(users.get(conf)), names(groups.get(conf)));
  }

  private static List<String> names(String list) {
    return List.copyOf(StringUtils.getTrimmedStringCollection(list));
  }
}
