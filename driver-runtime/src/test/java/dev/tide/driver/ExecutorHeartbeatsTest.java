package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppOptions;
import dev.tide.driver.conf.TideOptions;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Which executors the driver declares lost, on a clock the test moves. */
class ExecutorHeartbeatsTest {
  private final ExecutorHeartbeats heartbeats = new ExecutorHeartbeats(Duration.ofSeconds(60));

  @Test
  void anExecutorIsLostOnlyOnceSilentLongerThanTheTimeout() {
    heartbeats.registered("1", "node-a", 1_000);
    heartbeats.registered("2", "node-b", 1_000);
    heartbeats.heard("2", 30_000);
    assertEquals(List.of(), heartbeats.expire(61_000), "silent exactly 60 s: not yet");
    List<ExecutorHeartbeats.Silent> lost = heartbeats.expire(62_000);
    assertEquals(List.of(new ExecutorHeartbeats.Silent("1", "node-a", 61_000)), lost);
    assertEquals("lost: no heartbeat for 61 s (tide.executor.heartbeatTimeout = 60s)",
        heartbeats.reason(lost.get(0)));
    assertEquals(List.of(), heartbeats.expire(62_000), "declared lost once");
    heartbeats.heard("1", 63_000); // a late message from the lost one does not bring it back
    assertEquals(List.of(new ExecutorHeartbeats.Silent("2", "node-b", 60_001)),
        heartbeats.expire(90_001));
    assertEquals(List.of(), heartbeats.expire(1_000_000));
    heartbeats.registered("3", "node-c", 0);
    assertEquals("lost: no heartbeat for 61 s (tide.executor.heartbeatTimeout = 60s)",
        heartbeats.reason(heartbeats.expire(60_200).get(0)), "rounded up: more than 60 s");
  }

  @Test
  void aRemovedExecutorIsNoLongerWatchedAndUnknownIdsAreIgnored() {
    heartbeats.registered("1", "node-a", 0);
    heartbeats.removed("1");
    heartbeats.heard("7", 0);
    assertEquals(List.of(), heartbeats.expire(3_600_000));
  }

  @Test
  void aTimeoutNotLongerThanTheIntervalIsRefusedNamingBothKeys() {
    Configuration conf = new Configuration(false);
    conf.set(AppOptions.EXECUTOR_HEARTBEAT_INTERVAL.key(), "10s");
    conf.set(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(), "10s");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ExecutorHeartbeats.from(conf));
    assertEquals("tide.executor.heartbeatTimeout = 10s must be longer than"
        + " tide.executor.heartbeatInterval = 10s (several heartbeats should fit in the timeout)",
        e.getMessage());
    conf.set(TideOptions.EXECUTOR_HEARTBEAT_TIMEOUT.key(), "0");
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> ExecutorHeartbeats.from(conf));
    assertTrue(zero.getMessage().contains("tide.executor.heartbeatTimeout"), zero.getMessage());
    ExecutorHeartbeats.from(new Configuration(false)); // the defaults are valid
  }
}
