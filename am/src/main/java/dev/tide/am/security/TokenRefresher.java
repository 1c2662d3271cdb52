package dev.tide.am.security;

import dev.tide.driver.events.EventName;
import dev.tide.time.Clock;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the application's delegation tokens valid for as long as it runs, on a thread of its
 * own, following {@link TokenSchedule}. With a keytab it logs in afresh for each step (a login
 * that holds no tokens: a NameNode issues tokens only to a Kerberos login), obtains tokens with
 * the principal as their renewer, learns their expiry by renewing them once, adds them to this
 * process's user (replacing those of the same services) and hands them to {@link Listener#fresh}
 * for the executors; later it renews them while that gains a whole interval, and obtains fresh
 * ones again before the maximum date. Without a keytab the ResourceManager renews the client's
 * tokens, and at the schedule's end {@link Listener#expiring} is told why the application must
 * end. A step that fails is retried after a tenth of the time left, at least a second.
 */
public final class TokenRefresher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TokenRefresher.class);
  private static final long MIN_RETRY_MILLIS = 1000;

  /** Where the refresher's results go (the driver: events, executors, the job's end). */
  public interface Listener {
    void event(EventName name, Object... keyValues);

    /** Fresh tokens for the executors (never the AMRM token). */
    void fresh(Credentials executorCredentials);

    /** The tokens cannot outlive the application: it must end, for this reason. */
    void expiring(String diagnostics);
  }

  private final Configuration conf;
  private final Optional<KerberosLogin.Keytab> keytab;
  private final Set<java.net.URI> filesystems;
  private final Listener listener;
  private final Clock clock;
  private final ScheduledExecutorService thread;
  private TokenSchedule schedule;
  private List<Token<?>> current = List.of();

  public TokenRefresher(Configuration conf, Optional<KerberosLogin.Keytab> keytab,
      Set<java.net.URI> filesystems, Listener listener, Clock clock) {
    this.conf = conf;
    this.keytab = keytab;
    this.filesystems = filesystems;
    this.listener = listener;
    this.clock = clock;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tide-tokens");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts from the tokens the AM was launched with: records {@code tokensObtained} and
   * schedules the first step (with a keytab: obtaining fresh tokens at once). Does nothing
   * when they hold no delegation token with a maximum date and there is no keytab.
   */
  public void start(Credentials launched) {
    List<Token<?>> tokens = delegationTokens(launched.getAllTokens());
    Optional<Long> maxDate = DelegationTokens.earliestMaxDate(launched);
    if (maxDate.isEmpty() && keytab.isEmpty()) {
      LOG.info("No delegation token with a maximum lifetime: nothing to renew");
      return;
    }
    long max = maxDate.orElse(Long.MAX_VALUE);
    schedule = new TokenSchedule(clock, keytab.isPresent(), max, max);
    long next = keytab.isPresent() ? clock.millis() : schedule.next().atMillis();
    LOG.info("Delegation tokens {}, maximum lifetime until {}; {}", DelegationTokens.describe(
        tokens), Instant.ofEpochMilli(max), keytab.isPresent() ? "obtaining fresh ones from"
        + " the keytab of " + keytab.get().principal() : "without a keytab the application"
        + " ends at " + Instant.ofEpochMilli(next));
    listener.event(EventName.TOKENS_OBTAINED, "tokens", String.join(", ",
        DelegationTokens.describe(tokens)), "maxDate", max, "keytab", keytab.isPresent(),
        "next", next);
    schedule(next - clock.millis());
  }

  private void schedule(long delayMillis) {
    thread.schedule(this::step, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
  }

  private void step() {
    TokenSchedule.Step step = keytab.isPresent() && current.isEmpty()
        ? new TokenSchedule.Step(TokenSchedule.Action.REOBTAIN, clock.millis())
        : schedule.next();
    try {
      switch (step.action()) {
        case END -> {
          String end = Instant.ofEpochMilli(schedule.maxDateMillis()).toString();
          listener.expiring("the application's delegation tokens reach their maximum lifetime"
              + " at " + end + " and cannot be renewed beyond it; a stream that runs longer"
              + " needs --principal and --keytab (tide.kerberos.principal, tide.kerberos.keytab)"
              + " so that its ApplicationMaster can obtain fresh ones");
          return;
        }
        case RENEW -> renew();
        case REOBTAIN -> reobtain();
        default -> throw new IllegalStateException(step.action().toString());
      }
      schedule(schedule.untilNext().toMillis());
    } catch (Exception e) {
      long left = Math.min(schedule.expiresMillis(), schedule.maxDateMillis()) - clock.millis();
      long retry = Math.max(MIN_RETRY_MILLIS, left / 10);
      LOG.warn("Cannot {} the delegation tokens ({}); trying again in {} ms", step.action()
          .toString().toLowerCase(java.util.Locale.ROOT), DelegationTokens.oneLine(e), retry, e);
      schedule(retry);
    }
  }

  private void reobtain() throws IOException, InterruptedException {
    UserGroupInformation login = KerberosLogin.loginForTokens(keytab.get());
    Credentials fresh = new Credentials();
    long expires;
    try {
      expires = login.doAs((PrivilegedExceptionAction<Long>) () -> {
        List<Token<?>> obtained = DelegationTokens.obtain(conf, keytab.get().principal(),
            filesystems, fresh);
        return renewAll(obtained);
      });
    } finally {
      FileSystem.closeAllForUGI(login);
    }
    current = new ArrayList<>(delegationTokens(fresh.getAllTokens()));
    long maxDate = DelegationTokens.earliestMaxDate(fresh).orElse(expires);
    schedule.obtained(expires, maxDate);
    UserGroupInformation.getCurrentUser().addCredentials(fresh);
    TokenSchedule.Step next = schedule.next();
    LOG.info("Obtained fresh delegation tokens {} as {}: they expire at {} unless renewed, at"
        + " the latest at {}; next: {} at {}", DelegationTokens.describe(current),
        keytab.get().principal(), Instant.ofEpochMilli(expires), Instant.ofEpochMilli(maxDate),
        next.action(), Instant.ofEpochMilli(next.atMillis()));
    listener.event(EventName.TOKENS_REOBTAINED, "tokens", String.join(", ",
        DelegationTokens.describe(current)), "expires", schedule.expiresMillis(), "maxDate",
        maxDate, "next", next.atMillis());
    listener.fresh(DelegationTokens.forExecutors(fresh));
  }

  private void renew() throws IOException, InterruptedException {
    UserGroupInformation login = KerberosLogin.loginForTokens(keytab.get());
    long expires;
    try {
      expires = login.doAs((PrivilegedExceptionAction<Long>) () -> renewAll(current));
    } finally {
      FileSystem.closeAllForUGI(login);
    }
    schedule.renewed(expires);
    TokenSchedule.Step next = schedule.next();
    LOG.info("Renewed the delegation tokens {} until {}; next: {} at {}",
        DelegationTokens.describe(current), Instant.ofEpochMilli(expires), next.action(),
        Instant.ofEpochMilli(next.atMillis()));
    listener.event(EventName.TOKENS_RENEWED, "tokens", String.join(", ",
        DelegationTokens.describe(current)), "expires", schedule.expiresMillis(), "maxDate",
        schedule.maxDateMillis(), "next", next.atMillis());
  }

  /** Renews each token; returns the earliest new expiry (epoch ms). */
  private long renewAll(Collection<Token<?>> tokens) throws IOException, InterruptedException {
    long earliest = Long.MAX_VALUE;
    for (Token<?> token : tokens) {
      earliest = Math.min(earliest, token.renew(conf));
    }
    return earliest;
  }

  private static List<Token<?>> delegationTokens(
      Collection<Token<? extends TokenIdentifier>> tokens) {
    List<Token<?>> delegation = new ArrayList<>();
    for (Token<?> token : tokens) {
      if (DelegationTokens.identifier(token).isPresent()) {
        delegation.add(token);
      }
    }
    return delegation;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
