package dev.tide.am.security;

import dev.tide.am.AmOptions;
import java.io.File;
import java.io.IOException;
import java.security.PrivilegedAction;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.util.KerberosUtil;
import org.apache.hadoop.security.authentication.util.SubjectUtil;
import org.apache.hadoop.yarn.client.util.YarnClientUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Who the client (and an ApplicationMaster with a keytab) acts as on a Kerberized cluster, and
 * the checks that turn Kerberos trouble into one line that says what to do: no ticket, an
 * expired one, a keytab without the principal's key, no ResourceManager principal. Nothing here
 * contacts YARN. Stateless; {@code now} comes from the caller.
 */
public final class KerberosLogin {
  /** The name of the shipped keytab in the ApplicationMaster's working directory. */
  public static final String AM_KEYTAB = "tide-principal.keytab";

  private KerberosLogin() {}

  /** Kerberos trouble, told in one line that names the fix; the client exits 2 on it. */
  public static final class LoginProblem extends Exception {
    public LoginProblem(String message) {
      super(message);
    }
  }

  /** The principal and keytab of {@code tide.kerberos.*}, when both are set. */
  public record Keytab(String principal, String path) {}

  /**
   * @return the keytab login of {@code tide.kerberos.principal} / {@code keytab}, or empty
   * @throws LoginProblem when only one of them is set, or the keytab is not a readable file
   */
  public static Optional<Keytab> keytab(Configuration conf) throws LoginProblem {
    String principal = AmOptions.KERBEROS_PRINCIPAL.get(conf);
    String keytab = AmOptions.KERBEROS_KEYTAB.get(conf);
    if (principal.isEmpty() && keytab.isEmpty()) {
      return Optional.empty();
    }
    if (principal.isEmpty() || keytab.isEmpty()) {
      throw new LoginProblem("--principal and --keytab (" + AmOptions.KERBEROS_PRINCIPAL.key()
          + ", " + AmOptions.KERBEROS_KEYTAB.key() + ") go together; only "
          + (principal.isEmpty() ? "the keytab " + keytab : "the principal " + principal)
          + " is set");
    }
    if (!new File(keytab).isFile() || !new File(keytab).canRead()) {
      throw new LoginProblem("keytab " + keytab + " (--keytab) is not a readable file");
    }
    return Optional.of(new Keytab(principal, keytab));
  }

  /**
   * The user the client acts as: logged in from the keytab when one is set, otherwise the
   * current user, who must hold a valid Kerberos ticket (or delegation tokens, as under a
   * workflow launcher). With security off, the current user.
   */
  public static UserGroupInformation clientUser(Configuration conf, Instant now)
      throws LoginProblem, IOException {
    if (!UserGroupInformation.isSecurityEnabled()) {
      return UserGroupInformation.getCurrentUser();
    }
    Optional<Keytab> keytab = keytab(conf);
    if (keytab.isPresent()) {
      return fromKeytab(keytab.get());
    }
    UserGroupInformation user = UserGroupInformation.getCurrentUser();
    requireTicket(user, now);
    return user;
  }

  /**
   * Logs {@code keytab.principal()} in from its keytab (without changing the process's login
   * user).
   *
   * @throws LoginProblem naming the principals the keytab holds when it has none for this one
   */
  public static UserGroupInformation fromKeytab(Keytab keytab) throws LoginProblem {
    try {
      return UserGroupInformation.loginUserFromKeytabAndReturnUGI(keytab.principal(),
          keytab.path());
    } catch (IOException e) {
      String[] held;
      try {
        held = KerberosUtil.getPrincipalNames(keytab.path(), Pattern.compile(".*"));
      } catch (IOException | RuntimeException unreadable) {
        throw new LoginProblem("cannot read keytab " + keytab.path() + ": "
            + DelegationTokens.oneLine(unreadable));
      }
      boolean matches = Arrays.stream(held).anyMatch(p -> p.equals(keytab.principal())
          || p.startsWith(keytab.principal() + "@"));
      if (!matches) {
        throw new LoginProblem("keytab " + keytab.path() + " holds no key of "
            + keytab.principal() + " (it holds " + String.join(", ", held) + "): check"
            + " --principal, or use that principal's keytab");
      }
      throw new LoginProblem("cannot log in as " + keytab.principal() + " from keytab "
          + keytab.path() + ": " + DelegationTokens.oneLine(rootCause(e)));
    }
  }

  /**
   * A fresh login from {@code keytab} that holds Kerberos credentials only: a NameNode issues
   * delegation tokens only to a Kerberos login, not to a connection made with a token.
   */
  static UserGroupInformation loginForTokens(Keytab keytab) throws IOException {
    return UserGroupInformation.loginUserFromKeytabAndReturnUGI(keytab.principal(),
        keytab.path());
  }

  /**
   * Makes {@code keytab}'s principal this process's login user (the ApplicationMaster's), with
   * the credentials of the container's token file (the AMRM token, the application secret, the
   * client's delegation tokens) added to it.
   */
  public static void loginProcess(Keytab keytab) throws IOException {
    Credentials launched = UserGroupInformation.getCurrentUser().getCredentials();
    UserGroupInformation.loginUserFromKeytab(keytab.principal(), keytab.path());
    UserGroupInformation.getLoginUser().addCredentials(launched);
  }

  /**
   * @throws LoginProblem when {@code user} has neither a valid Kerberos ticket nor delegation
   *     tokens
   */
  static void requireTicket(UserGroupInformation user, Instant now) throws LoginProblem {
    Optional<KerberosTicket> tgt = ticketGrantingTicket(user);
    if (tgt.isPresent() && tgt.get().getEndTime() != null
        && !tgt.get().getEndTime().toInstant().isAfter(now)) {
      throw new LoginProblem("the Kerberos ticket of " + tgt.get().getClient() + " expired at "
          + tgt.get().getEndTime().toInstant() + ": run kinit again, or submit with"
          + " --principal and --keytab");
    }
    if (tgt.isPresent() || user.hasKerberosCredentials()
        || user.getCredentials().numberOfTokens() > 0) {
      return;
    }
    throw new LoginProblem("security is on (hadoop.security.authentication=kerberos) and "
        + user.getUserName() + " has no valid Kerberos ticket (none, or it expired): run kinit"
        + " first, or submit with --principal <you@REALM> --keytab <file>");
  }

  /** The ticket-granting ticket in {@code user}'s Kerberos login, if it has one. */
  static Optional<KerberosTicket> ticketGrantingTicket(UserGroupInformation user) {
    Subject subject = user.doAs((PrivilegedAction<Subject>) SubjectUtil::current);
    if (subject == null) {
      return Optional.empty();
    }
    for (KerberosTicket ticket : subject.getPrivateCredentials(KerberosTicket.class)) {
      if (ticket.getServer() != null && ticket.getServer().getName().startsWith("krbtgt/")) {
        return Optional.of(ticket);
      }
    }
    return Optional.empty();
  }

  /**
   * The ResourceManager's principal, the renewer of the application's delegation tokens.
   *
   * @throws LoginProblem when {@code yarn.resourcemanager.principal} is not set
   */
  public static String rmPrincipal(Configuration conf) throws LoginProblem {
    String principal;
    try {
      principal = YarnClientUtils.getRmPrincipal(conf);
    } catch (IOException | RuntimeException e) {
      throw new LoginProblem(YarnConfiguration.RM_PRINCIPAL + " cannot be resolved: "
          + DelegationTokens.oneLine(e));
    }
    if (principal == null || principal.isEmpty()) {
      throw new LoginProblem("security is on but " + YarnConfiguration.RM_PRINCIPAL + " is not"
          + " set (yarn-site.xml of the client's Hadoop configuration): it names the renewer"
          + " of the application's delegation tokens");
    }
    return principal;
  }

  private static Throwable rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }
}
