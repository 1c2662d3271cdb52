package dev.tide.shuffle;

import java.util.regex.Pattern;

/**
 * Validates the strings that become path components: YARN application ids
 * ({@code application_<clusterTimestamp>_<sequence>}) and user names. Anything that could
 * escape a directory (separators, {@code ..}) is refused. Stateless and thread-safe.
 */
public final class ApplicationIdFormat {
  private static final Pattern APP_ID = Pattern.compile("application_\\d{1,19}_\\d{1,10}");
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.@$-]{0,254}");

  private ApplicationIdFormat() {}

  public static boolean isValidAppId(String appId) {
    return appId != null && APP_ID.matcher(appId).matches();
  }

  /** @throws IllegalArgumentException naming the bad value */
  public static String requireValidAppId(String appId) {
    if (!isValidAppId(appId)) {
      throw new IllegalArgumentException("not a YARN application id: '" + appId + "'");
    }
    return appId;
  }

  /** @throws IllegalArgumentException naming the bad value */
  public static String requireValidUser(String user) {
    if (user == null || !USER.matcher(user).matches() || user.contains("..")) {
      throw new IllegalArgumentException("not a usable user name: '" + user + "'");
    }
    return user;
  }
}
