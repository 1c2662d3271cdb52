package dev.tide.am;

import dev.tide.am.security.DelegationTokens;
import dev.tide.am.security.KerberosLogin;
import dev.tide.am.security.TokenRefresher;
import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.driver.Driver;
import dev.tide.driver.events.EventName;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's side of delegation tokens on a secure cluster: the keytab the client shipped
 * ({@code --keytab}), and the {@link TokenRefresher} whose fresh tokens go to the running
 * executors (over the driver's RPC) and into the launch context of later ones, and whose tokens
 * that cannot outlive the job end it.
 */
final class AmTokens {
  private static final Logger LOG = LoggerFactory.getLogger(AmTokens.class);

  private AmTokens() {}

  /**
   * The keytab the client shipped ({@code --keytab}), in the working directory, with its
   * principal; empty without one or with security off.
   */
  static Optional<KerberosLogin.Keytab> shippedKeytab(Configuration conf) {
    String principal = AmOptions.KERBEROS_PRINCIPAL.get(conf);
    File keytab = new File(AmOptions.KERBEROS_KEYTAB.get(conf)).getAbsoluteFile();
    if (!UserGroupInformation.isSecurityEnabled() || principal.isEmpty()
        || AmOptions.KERBEROS_KEYTAB.get(conf).isEmpty() || !keytab.isFile()) {
      return Optional.empty();
    }
    return Optional.of(new KerberosLogin.Keytab(principal, keytab.getPath()));
  }

  /**
   * The refresher of the tokens of the job's file systems, not started (with security off:
   * none).
   */
  static Optional<TokenRefresher> refresher(Configuration conf, Driver driver,
      ExecutorLaunchContexts contexts) throws IOException {
    if (!UserGroupInformation.isSecurityEnabled()) {
      return Optional.empty();
    }
    return Optional.of(new TokenRefresher(conf, shippedKeytab(conf),
        DelegationTokens.fileSystems(conf,
            dev.tide.driver.job.JobArgs.decode(dev.tide.app.AppOptions.JOB_ARGS.get(conf))),
        listener(driver, contexts), dev.tide.time.Clock.system()));
  }

  private static TokenRefresher.Listener listener(Driver driver,
      ExecutorLaunchContexts contexts) {
    return new TokenRefresher.Listener() {
      @Override
      public void event(EventName name, Object... keyValues) {
        driver.logEvent(name, keyValues);
      }

      @Override
      public void fresh(Credentials executorCredentials) {
        try {
          contexts.updateCredentials(DelegationTokens.forExecutors(
              UserGroupInformation.getCurrentUser().getCredentials()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        driver.updateTokens(ExecutorLaunchContexts.serialize(executorCredentials));
      }

      @Override
      public void expiring(String diagnostics) {
        LOG.error("Ending the application: {}", diagnostics);
        driver.abort(diagnostics);
      }
    };
  }
}
