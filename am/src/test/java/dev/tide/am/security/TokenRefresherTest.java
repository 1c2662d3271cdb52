package dev.tide.am.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventName;
import dev.tide.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** Without a keytab the refresher ends the application shortly before the tokens' max date. */
class TokenRefresherTest {
  @Test
  void withoutAKeytabTheApplicationIsToldToEndBeforeTheMaximumDate() throws Exception {
    long maxDate = System.currentTimeMillis() + 2_000;
    DelegationTokenIdentifier id = new DelegationTokenIdentifier(new Text("alice"),
        new Text("rm"), new Text(""));
    id.setMaxDate(maxDate);
    Credentials launched = new Credentials();
    launched.addToken(new Text("nn:8020"), new Token<>(id.getBytes(), new byte[] {1},
        DelegationTokenIdentifier.HDFS_DELEGATION_KIND, new Text("nn:8020")));
    List<String> events = new CopyOnWriteArrayList<>();
    List<String> endings = new CopyOnWriteArrayList<>();
    TokenRefresher.Listener listener = new TokenRefresher.Listener() {
      @Override
      public void event(EventName name, Object... keyValues) {
        events.add(name.wireName());
      }

      @Override
      public void fresh(Credentials executorCredentials) {}

      @Override
      public void expiring(String diagnostics) {
        endings.add(diagnostics);
      }
    };
    try (TokenRefresher refresher = new TokenRefresher(new Configuration(false),
        Optional.empty(), Set.of(), listener, dev.tide.time.Clock.system())) {
      refresher.start(launched);

      Await.until(Duration.ofSeconds(10), "the application ends", () -> !endings.isEmpty());
    }
    assertEquals(List.of("tokensObtained"), events);
    assertTrue(endings.get(0).contains("maximum lifetime at " + java.time.Instant.ofEpochMilli(
        maxDate)) && endings.get(0).contains("--keytab"), endings.get(0));
  }
}
