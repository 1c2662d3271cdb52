package dev.tide.am.client;

import dev.tide.am.AmOptions;
import dev.tide.am.security.DelegationTokens;
import dev.tide.driver.conf.TideOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.Credentials;

/**
 * The client's warning, before submission, for a stream that cannot outlive its delegation
 * tokens: without a keytab nothing can renew them past their maximum lifetime, and the stream
 * then ends. Stateless.
 */
final class TokenLifetime {
  private TokenLifetime() {}

  /**
   * The warning for a streaming job submitted with {@code tokens} at {@code now}; empty when it
   * has a keytab, holds no token with a maximum date, or stops ({@code
   * tide.streaming.stopAfter}) before that date.
   */
  static Optional<String> streamWarning(Configuration conf, Credentials tokens, Instant now) {
    if (!AmOptions.KERBEROS_KEYTAB.get(conf).isEmpty()) {
      return Optional.empty();
    }
    Optional<Long> maxDate = DelegationTokens.earliestMaxDate(tokens);
    if (maxDate.isEmpty()) {
      return Optional.empty();
    }
    Duration stopAfter = TideOptions.STREAMING_STOP_AFTER.get(conf);
    Instant end = Instant.ofEpochMilli(maxDate.get());
    if (!stopAfter.isZero() && now.plus(stopAfter).isBefore(end)) {
      return Optional.empty();
    }
    return Optional.of("tide: warning: this stream's delegation tokens reach their maximum"
        + " lifetime at " + end + " (in " + Duration.between(now, end).toMinutes()
        + " min); the stream ends before then. To run longer, submit with --principal and"
        + " --keytab");
  }
}
