package dev.tide.am.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** The one-line Kerberos errors the client stops with (exit 2), without a KDC. */
class KerberosLoginTest {
  @Test
  void noTicketNamesKinitAndKeytab() {
    UserGroupInformation carol = UserGroupInformation.createRemoteUser("carol");

    KerberosLogin.LoginProblem e = assertThrows(KerberosLogin.LoginProblem.class,
        () -> KerberosLogin.requireTicket(carol, Instant.now()));

    assertTrue(e.getMessage().contains("carol has no valid Kerberos ticket")
        && e.getMessage().contains("kinit") && e.getMessage().contains("--keytab"),
        e.getMessage());
    assertEquals(1, e.getMessage().lines().count());
  }

  @Test
  void anExpiredTicketNamesWhenItExpired() throws Exception {
    javax.security.auth.kerberos.KerberosPrincipal client =
        new javax.security.auth.kerberos.KerberosPrincipal("alice@EXAMPLE.COM");
    java.util.Date start = java.util.Date.from(Instant.parse("2026-01-01T00:00:00Z"));
    java.util.Date end = java.util.Date.from(Instant.parse("2026-01-01T10:00:00Z"));
    javax.security.auth.kerberos.KerberosTicket tgt =
        new javax.security.auth.kerberos.KerberosTicket(new byte[] {1}, client,
            new javax.security.auth.kerberos.KerberosPrincipal("krbtgt/EXAMPLE.COM@EXAMPLE.COM"),
            new byte[16], 17, new boolean[32], start, start, end, null, null);
    javax.security.auth.Subject subject = new javax.security.auth.Subject();
    subject.getPrincipals().add(client);
    subject.getPrivateCredentials().add(tgt);
    UserGroupInformation alice = UserGroupInformation.getUGIFromSubject(subject);

    KerberosLogin.LoginProblem e = assertThrows(KerberosLogin.LoginProblem.class,
        () -> KerberosLogin.requireTicket(alice, Instant.parse("2026-01-01T11:00:00Z")));

    assertEquals("the Kerberos ticket of alice@EXAMPLE.COM expired at 2026-01-01T10:00:00Z:"
        + " run kinit again, or submit with --principal and --keytab", e.getMessage());
    KerberosLogin.requireTicket(alice, Instant.parse("2026-01-01T09:00:00Z"));
  }

  @Test
  void delegationTokensWithoutATicketAreEnough() throws Exception {
    UserGroupInformation launched = UserGroupInformation.createRemoteUser("carol");
    launched.addToken(new Token<>(new byte[0], new byte[0], new Text("HDFS_DELEGATION_TOKEN"),
        new Text("nn:8020")));

    KerberosLogin.requireTicket(launched, Instant.now());
  }

  @Test
  void principalWithoutKeytabAndAMissingKeytabFile() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("tide.kerberos.principal", "alice@EXAMPLE.COM");
    KerberosLogin.LoginProblem alone = assertThrows(KerberosLogin.LoginProblem.class,
        () -> KerberosLogin.keytab(conf));
    assertTrue(alone.getMessage().startsWith("--principal and --keytab"), alone.getMessage());

    conf.set("tide.kerberos.keytab", "/no/such/alice.keytab");
    KerberosLogin.LoginProblem missing = assertThrows(KerberosLogin.LoginProblem.class,
        () -> KerberosLogin.keytab(conf));
    assertEquals("keytab /no/such/alice.keytab (--keytab) is not a readable file",
        missing.getMessage());

    assertEquals(Optional.empty(), KerberosLogin.keytab(new Configuration(false)));
  }

  @Test
  void aMissingResourceManagerPrincipalIsNamed() {
    KerberosLogin.LoginProblem e = assertThrows(KerberosLogin.LoginProblem.class,
        () -> KerberosLogin.rmPrincipal(new Configuration(false)));

    assertTrue(e.getMessage().startsWith("security is on but yarn.resourcemanager.principal is"
        + " not set"), e.getMessage());
  }
}
