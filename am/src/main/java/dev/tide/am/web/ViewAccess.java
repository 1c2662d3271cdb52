package dev.tide.am.web;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Who may read the AM's web UI, JSON API and {@code /jmx}: YARN's rule for an application's
 * VIEW_APP access (the ResourceManager's {@code ApplicationACLsManager}), applied by the AM to
 * the user the ResourceManager's proxy names. With {@code yarn.acl.enable} off, everyone; on,
 * the submitting user, a YARN admin ({@code yarn.admin.acl}) and whoever the application's view
 * ACL names, by user or by group ({@code *}: everyone). A request that names no user is refused.
 * Immutable and thread-safe; {@link #decide} is pure but for the group lookup it is given.
 *
 * @param enabled {@code yarn.acl.enable}
 * @param application the application id, for messages
 * @param owner the submitting user
 * @param view the application's view ACL (as set in its VIEW_APP)
 * @param admins {@code yarn.admin.acl}
 * @param grantingKeys how a refused user is told to get access (the settings that fill
 *     {@code view}), e.g. {@code tide.ui.view.acls (users) or tide.ui.view.acls.groups (groups)}
 */
public record ViewAccess(boolean enabled, String application, String owner, Acl view, Acl admins,
    String grantingKeys) {

  /** No access control: {@code yarn.acl.enable} off. */
  public static final ViewAccess OPEN = new ViewAccess(false, "", "", Acl.NOBODY, Acl.NOBODY, "");

  /**
   * An access control list in Hadoop's syntax ({@code AccessControlList}): users separated by
   * commas, a blank, groups separated by commas ({@code "alice,bob admins"}; {@code " admins"}
   * names groups only); {@code *} as either part means everyone.
   */
  public record Acl(boolean everyone, Set<String> users, Set<String> groups) {
    public static final Acl NOBODY = new Acl(false, Set.of(), Set.of());

    public Acl {
      users = Set.copyOf(users);
      groups = Set.copyOf(groups);
    }

    /** Parses Hadoop's ACL syntax, as the ResourceManager does. */
    public static Acl parse(String text) {
      if (text == null) {
        return NOBODY;
      }
      String[] parts = text.split(" ", 2);
      for (String part : parts) {
        if (part.trim().equals("*")) {
          return new Acl(true, Set.of(), Set.of());
        }
      }
      return new Acl(false, names(parts[0]), parts.length > 1 ? names(parts[1]) : Set.of());
    }

    /** The ACL of {@code users} and {@code groups}; {@code *} in either means everyone. */
    public static Acl of(Collection<String> users, Collection<String> groups) {
      if (users.contains("*") || groups.contains("*")) {
        return new Acl(true, Set.of(), Set.of());
      }
      return new Acl(false, new LinkedHashSet<>(users), new LinkedHashSet<>(groups));
    }

    private static Set<String> names(String list) {
      Set<String> names = new LinkedHashSet<>();
      for (String name : list.split(",")) {
        if (!name.isBlank()) {
          names.add(name.trim());
        }
      }
      return names;
    }

    /** In Hadoop's syntax: {@code *}, or users, a blank, groups (a blank alone: nobody). */
    public String text() {
      return everyone ? "*"
          : String.join(",", sorted(users)) + " " + String.join(",", sorted(groups));
    }

    private static List<String> sorted(Set<String> names) {
      return names.stream().sorted().toList();
    }

    boolean namesUser(String user) {
      return everyone || users.contains(user);
    }
  }

  /** Whether a request may be served, and why (for the log and the refusal). */
  public record Decision(boolean allowed, String reason) {}

  /**
   * @param user the remote user (the proxy's), null or empty when the request names none
   * @param groupsOf the groups of a user; asked at most once, and only when a group could grant
   *     access
   */
  public Decision decide(String user, Function<String, Collection<String>> groupsOf) {
    if (!enabled) {
      return new Decision(true, "yarn.acl.enable is false");
    }
    if (user == null || user.isEmpty()) {
      return new Decision(false, "The request names no user, and yarn.acl.enable is true, so "
          + application + "'s web UI answers only requests that come through the"
          + " ResourceManager's web proxy (the application's tracking URL), which names the user"
          + " it authenticated.");
    }
    if (user.equals(owner)) {
      return new Decision(true, user + " submitted " + application);
    }
    if (admins.namesUser(user)) {
      return new Decision(true, user + " is a YARN admin (yarn.admin.acl)");
    }
    if (view.namesUser(user)) {
      return new Decision(true, user + " is in the view ACL of " + application);
    }
    if (!admins.groups().isEmpty() || !view.groups().isEmpty()) {
      Collection<String> groups = groupsOf.apply(user);
      for (String group : groups) {
        if (admins.groups().contains(group)) {
          return new Decision(true, user + " is a YARN admin (group " + group
              + " in yarn.admin.acl)");
        }
        if (view.groups().contains(group)) {
          return new Decision(true, user + " is in group " + group + " of the view ACL of "
              + application);
        }
      }
    }
    return new Decision(false, "User " + user + " may not view " + application + " of " + owner
        + ": yarn.acl.enable is true and " + user + " is neither the submitting user, nor in"
        + " the application's view ACL (" + describe(view) + "), nor a YARN admin"
        + " (yarn.admin.acl). Access is granted by " + grantingKeys + " at submission.");
  }

  private static String describe(Acl acl) {
    if (acl.users().isEmpty() && acl.groups().isEmpty()) {
      return "empty";
    }
    return "users: " + (acl.users().isEmpty() ? "none" : String.join(", ", Acl.sorted(acl.users())))
        + "; groups: " + (acl.groups().isEmpty() ? "none"
            : String.join(", ", Acl.sorted(acl.groups())));
  }

  /** As servlet filter parameters ({@link #fromParameters}). */
  Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("enabled", Boolean.toString(enabled));
    p.put("application", application);
    p.put("owner", owner);
    p.put("view", view.text());
    p.put("admins", admins.text());
    p.put("grantingKeys", grantingKeys);
    return p;
  }

  /** From the parameters {@link #parameters} wrote. */
  static ViewAccess fromParameters(Function<String, String> parameter) {
    return new ViewAccess(Boolean.parseBoolean(parameter.apply("enabled")),
        parameter.apply("application"), parameter.apply("owner"),
        Acl.parse(parameter.apply("view")), Acl.parse(parameter.apply("admins")),
        parameter.apply("grantingKeys"));
  }
}
