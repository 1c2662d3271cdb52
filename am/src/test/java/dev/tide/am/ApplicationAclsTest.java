package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.web.ViewAccess;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAccessType;
import org.junit.jupiter.api.Test;

/** The application's YARN ACLs and the web UI's view rule, from the settings. */
class ApplicationAclsTest {
  @Test
  void byDefaultOnlyTheOwnerAndAdminsAsYarnsDefault() {
    Map<ApplicationAccessType, String> acls = ApplicationAcls.forYarn(new Configuration(false));
    assertEquals(Map.of(ApplicationAccessType.VIEW_APP, " ",
        ApplicationAccessType.MODIFY_APP, " "), acls);
  }

  @Test
  void viewAndModifyListsBecomeYarnAcls() {
    Configuration conf = new Configuration(false);
    conf.set("tide.ui.view.acls", " vera, victor ");
    conf.set("tide.ui.view.acls.groups", "analysts");
    conf.set("tide.ui.modify.acls", "oscar");
    Map<ApplicationAccessType, String> acls = ApplicationAcls.forYarn(conf);
    assertEquals("vera,victor analysts", acls.get(ApplicationAccessType.VIEW_APP));
    assertEquals("oscar ", acls.get(ApplicationAccessType.MODIFY_APP));
    conf.set("tide.ui.view.acls.groups", "*");
    assertEquals("*", ApplicationAcls.forYarn(conf).get(ApplicationAccessType.VIEW_APP));
  }

  @Test
  void theWebUiAppliesTheViewAclWithYarnsSwitchAndAdmins() {
    Configuration conf = new Configuration(false);
    conf.set("tide.ui.view.acls", "vera");
    ViewAccess off = ApplicationAcls.viewAccess(conf, "application_1_0001", "owen");
    assertFalse(off.enabled(), "yarn.acl.enable is false by default");
    conf.setBoolean("yarn.acl.enable", true);
    ViewAccess on = ApplicationAcls.viewAccess(conf, "application_1_0001", "owen");
    assertTrue(on.enabled());
    assertTrue(on.admins().everyone(), "yarn.admin.acl is * by default");
    conf.set("yarn.admin.acl", "root");
    on = ApplicationAcls.viewAccess(conf, "application_1_0001", "owen");
    assertTrue(on.decide("vera", user -> java.util.List.of()).allowed());
    assertTrue(on.decide("root", user -> java.util.List.of()).allowed());
    assertFalse(on.decide("mallory", user -> java.util.List.of()).allowed());
  }

  @Test
  void aNameWithABlankIsRefusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("tide.ui.view.acls", "vera, vic tor");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> AmOptions.validate(conf));
    assertTrue(e.getMessage().contains("tide.ui.view.acls") && e.getMessage().contains(
        "must be names separated by commas (no blank inside a name)"), e.getMessage());
  }
}
