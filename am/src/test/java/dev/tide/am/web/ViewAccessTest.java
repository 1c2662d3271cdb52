package dev.tide.am.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.junit.jupiter.api.Test;

/** The decision of who may read the AM's web UI, as YARN decides VIEW_APP. */
class ViewAccessTest {
  private static final String APP = "application_1_0001";
  private static final String KEYS = "tide.ui.view.acls (users) or tide.ui.view.acls.groups"
      + " (groups)";
  /** Hand-written group mapping; records whom it was asked about. */
  private final List<String> asked = new ArrayList<>();
  private final Map<String, Set<String>> groups = Map.of("gina", Set.of("staff", "analysts"),
      "ada", Set.of("hadoop-admins"), "mallory", Set.of("staff"));
  private final Function<String, Collection<String>> groupsOf = user -> {
    asked.add(user);
    return groups.getOrDefault(user, Set.of());
  };

  private static ViewAccess access(String view, String admins) {
    return new ViewAccess(true, APP, "owen", ViewAccess.Acl.parse(view),
        ViewAccess.Acl.parse(admins), KEYS);
  }

  @Test
  void theSubmittingUserReadsWhateverTheAcl() {
    assertTrue(access(" ", " ").decide("owen", groupsOf).allowed());
    assertEquals(List.of(), asked, "no group lookup for the owner");
  }

  @Test
  void usersListedInTheViewAclRead() {
    ViewAccess access = access("vera,victor", " ");
    assertTrue(access.decide("vera", groupsOf).allowed());
    assertTrue(access.decide("victor", groupsOf).allowed());
    ViewAccess.Decision mallory = access.decide("mallory", groupsOf);
    assertFalse(mallory.allowed());
    assertEquals("User mallory may not view application_1_0001 of owen: yarn.acl.enable is true"
        + " and mallory is neither the submitting user, nor in the application's view ACL"
        + " (users: vera, victor; groups: none), nor a YARN admin (yarn.admin.acl). Access is"
        + " granted by " + KEYS + " at submission.", mallory.reason());
    assertEquals(List.of(), asked, "no group lookup when no group could grant access");
  }

  @Test
  void membersOfAGroupInTheViewAclRead() {
    ViewAccess access = access(" analysts", " ");
    ViewAccess.Decision gina = access.decide("gina", groupsOf);
    assertTrue(gina.allowed());
    assertEquals("gina is in group analysts of the view ACL of application_1_0001",
        gina.reason());
    assertFalse(access.decide("mallory", groupsOf).allowed(), "staff is not analysts");
    assertFalse(access.decide("nobody", groupsOf).allowed(), "a user without groups");
    assertEquals(List.of("gina", "mallory", "nobody"), asked, "one lookup per decision");
  }

  @Test
  void yarnAdminsReadByUserOrGroup() {
    ViewAccess access = access(" ", "root hadoop-admins");
    assertTrue(access.decide("root", groupsOf).allowed());
    ViewAccess.Decision ada = access.decide("ada", groupsOf);
    assertTrue(ada.allowed());
    assertEquals("ada is a YARN admin (group hadoop-admins in yarn.admin.acl)", ada.reason());
    assertFalse(access.decide("mallory", groupsOf).allowed());
  }

  /** YARN's default yarn.admin.acl is *: with it everyone is an admin and reads. */
  @Test
  void aWildcardLetsEveryoneRead() {
    assertTrue(access("*", " ").decide("mallory", groupsOf).allowed());
    assertTrue(access(" *", " ").decide("mallory", groupsOf).allowed(), "* as the groups");
    assertTrue(access(" ", "*").decide("mallory", groupsOf).allowed(), "YARN's default admins");
    assertTrue(ViewAccess.Acl.of(List.of("vera", "*"), List.of()).everyone());
    assertEquals("*", ViewAccess.Acl.of(List.of(), List.of("*")).text());
  }

  @Test
  void anEmptyAclLetsOnlyTheOwnerAndAdminsRead() {
    for (String empty : List.of("", " ", "  ", ",", " ,")) {
      ViewAccess access = access(empty, "root");
      assertTrue(access.decide("owen", groupsOf).allowed(), "'" + empty + "'");
      assertTrue(access.decide("root", groupsOf).allowed(), "'" + empty + "'");
      assertFalse(access.decide("vera", groupsOf).allowed(), "'" + empty + "'");
    }
    assertTrue(access(null, "root").view().users().isEmpty());
    assertEquals(" ", ViewAccess.Acl.of(List.of(), List.of()).text(),
        "as YARN's default application ACL, nobody");
  }

  @Test
  void aRequestWithoutUserIsRefusedSayingWhy() {
    for (String none : new String[] {null, ""}) {
      ViewAccess.Decision decision = access("*", "*").decide(none, groupsOf);
      assertFalse(decision.allowed(), "even with * in every ACL");
      assertTrue(decision.reason().startsWith("The request names no user, and yarn.acl.enable"
          + " is true, so application_1_0001's web UI answers only requests that come through"
          + " the ResourceManager's web proxy"), decision.reason());
    }
  }

  @Test
  void withAclsOffEveryoneReadsEvenWithoutUser() {
    assertTrue(ViewAccess.OPEN.decide("mallory", groupsOf).allowed());
    assertTrue(ViewAccess.OPEN.decide(null, groupsOf).allowed());
    assertEquals(List.of(), asked);
  }

  /** The AM reads an ACL as the ResourceManager does (Hadoop's AccessControlList). */
  @Test
  void aclsParseAsHadoopParsesThem() {
    for (String text : List.of("alice", "alice,bob", " staff", "alice,bob staff,ops",
        " alice , bob  staff ", "*", " *", "alice,* ", "", " ", "alice ", ",bob, ")) {
      AccessControlList hadoop = new AccessControlList(text);
      ViewAccess.Acl ours = ViewAccess.Acl.parse(text);
      assertEquals(hadoop.isAllAllowed(), ours.everyone(), "'" + text + "' everyone");
      assertEquals(Set.copyOf(hadoop.getUsers()), ours.users(), "'" + text + "' users");
      assertEquals(Set.copyOf(hadoop.getGroups()), ours.groups(), "'" + text + "' groups");
      AccessControlList again = new AccessControlList(ours.text());
      assertEquals(Set.copyOf(hadoop.getUsers()), Set.copyOf(again.getUsers()),
          "'" + ours.text() + "' as written back");
      assertEquals(Set.copyOf(hadoop.getGroups()), Set.copyOf(again.getGroups()),
          "'" + ours.text() + "' as written back");
    }
  }

  @Test
  void theFilterParametersCarryTheWholeDecision() {
    ViewAccess access = access("vera staff", "root");
    assertEquals(access, ViewAccess.fromParameters(access.parameters()::get));
    assertEquals(ViewAccess.OPEN, ViewAccess.fromParameters(ViewAccess.OPEN.parameters()::get));
  }
}
