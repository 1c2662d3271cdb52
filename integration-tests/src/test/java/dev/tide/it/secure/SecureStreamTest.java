package dev.tide.it.secure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventName;
import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import dev.tide.it.secure.SecureCluster.TokenLifetimes;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream on the JVM's shared Kerberized cluster ({@link SecureCluster#shared}) whose NameNode
 * issues delegation tokens that must be renewed every {@link #RENEW_INTERVAL_MS} and live at
 * most {@link #MAX_LIFETIME_MS}. With
 * {@code --principal/--keytab} the stream runs through more than three maximum lifetimes and
 * commits every batch (its AM renews and re-obtains tokens and hands them to the executors);
 * without a keytab it ends before the tokens' maximum date with a message naming the date and
 * {@code --keytab}.
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class SecureStreamTest {
  static final long RENEW_INTERVAL_MS = TokenLifetimes.SHORT.renewIntervalMillis();
  static final long MAX_LIFETIME_MS = TokenLifetimes.SHORT.maxLifetimeMillis();
  private static final String EVENTS = "/tmp/tide-events-secure-stream";
  private static SecureCluster secure;
  private static UserGroupInformation alice;

  @BeforeAll
  static void start() throws Exception {
    secure = SecureCluster.shared(TokenLifetimes.SHORT);
    alice = secure.login(SecureCluster.ALICE);
  }

  private static Configuration conf(String stopAfter) {
    Configuration conf = secure.clientConf();
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.streaming.batchInterval", "3s");
    conf.set("tide.streaming.rate.schedule", "20@0s");
    conf.set("tide.streaming.rate.cost", "1ms");
    conf.set("tide.streaming.rate.spin", "false");
    conf.set("tide.streaming.rate.splits", "2");
    conf.set("tide.streaming.stopAfter", stopAfter);
    conf.set("tide.dynamicAllocation.maxExecutors", "1");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "600s");
    return conf;
  }

  @Test
  void withAKeytabAStreamOutlivesThreeMaximumLifetimes() throws Exception {
    long lifetimes = 3;
    String stopAfter = (lifetimes * MAX_LIFETIME_MS + RENEW_INTERVAL_MS) / 1000 + "s";
    String out = "/user/alice/stream-keytab";

    JobRun run = SecureCluster.as(alice, () -> Submitter.run(conf(stopAfter), System.out,
        "--principal", secure.principal(SecureCluster.ALICE), "--keytab",
        secure.keytab(SecureCluster.ALICE).toString(), "stream-rate", out));

    assertEquals(0, run.exitCode(), run.output());
    FileSystem fs = secure.cluster().fileSystem();
    List<EventLine> events = run.events(fs, EVENTS);
    System.out.print(timeline(events));
    List<EventLine> batches = JobRun.named(events, EventName.BATCH_COMPLETED);
    long first = batches.get(0).getLong("batch");
    long last = batches.get(batches.size() - 1).getLong("batch");
    assertTrue(last - first >= lifetimes * MAX_LIFETIME_MS, "ran " + (last - first) + " ms");
    FileStatus[] committed = fs.globStatus(new org.apache.hadoop.fs.Path(out, "batch-*"));
    assertEquals(batches.size(), committed.length, "every batch committed");
    assertTrue(JobRun.named(events, EventName.TOKENS_REOBTAINED).size() >= lifetimes,
        "fresh tokens at least once per lifetime");
    assertTrue(!JobRun.named(events, EventName.TOKENS_SENT).isEmpty());
  }

  @Test
  void withoutAKeytabTheStreamEndsNamingTheExpiryAndKeytab() throws Exception {
    String out = "/user/alice/stream-no-keytab";

    JobRun run = SecureCluster.as(alice, () -> Submitter.run(conf("0"), System.out,
        "stream-rate", out));

    assertEquals(1, run.exitCode(), run.output());
    assertTrue(run.output().contains("warning: this stream's delegation tokens reach their"
        + " maximum lifetime"), run.output());
    assertTrue(run.output().lines().anyMatch(l -> !l.startsWith("tide: warning")
        && l.contains("delegation tokens reach their maximum lifetime at")
        && l.contains("a stream that runs longer needs --principal and --keytab")),
        "the application's diagnostics: " + run.output());
    List<EventLine> events = run.events(secure.cluster().fileSystem(), EVENTS);
    assertEquals("false", JobRun.named(events, EventName.TOKENS_OBTAINED).get(0).get("keytab"));
  }

  /** The token events and batch count of a stream, one line each, for the test's report. */
  static String timeline(List<EventLine> events) {
    StringBuilder text = new StringBuilder("token timeline:\n");
    long start = events.get(0).timeMillis();
    int batches = 0;
    for (EventLine e : events) {
      if (e.is(EventName.BATCH_COMPLETED)) {
        batches++;
      }
      if (e.is(EventName.TOKENS_OBTAINED) || e.is(EventName.TOKENS_RENEWED)
          || e.is(EventName.TOKENS_REOBTAINED) || e.is(EventName.TOKENS_SENT)) {
        text.append(String.format("  +%6.1f s %-17s batches so far %3d", (e.timeMillis()
            - start) / 1000.0, e.event(), batches));
        for (String key : List.of("executors", "expires", "maxDate", "next")) {
          if (e.get(key) != null) {
            text.append(' ').append(key).append('=').append(key.equals("executors")
                ? e.get(key) : Instant.ofEpochMilli(e.getLong(key)).toString());
          }
        }
        text.append('\n');
      }
    }
    return text.append("  batches: ").append(batches).append('\n').toString();
  }
}
