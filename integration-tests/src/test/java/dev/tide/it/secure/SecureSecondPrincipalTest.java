package dev.tide.it.secure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppSecret;
import dev.tide.driver.events.EventLine;
import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.it.HttpReply;
import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import dev.tide.it.WordCountOutput;
import dev.tide.it.secure.SecureCluster.TokenLifetimes;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.client.AuthenticatedURL;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A second principal against a running application of the first, on the JVM's shared
 * Kerberized cluster ({@link SecureCluster#shared(TokenLifetimes)}: NodeManagers that require
 * encrypted shuffle connections, YARN's application ACLs, SPNEGO on YARN's web servers, short
 * token lifetimes). {@code alice} runs an encrypted {@link GatedJob} with her keytab (its
 * driver waits between its two plans, with the first plan's map output in
 * {@code tide_shuffle}); meanwhile {@code bob}, logged in from his own keytab, tries to fetch
 * that map output with Tide's shuffle client and to read the AM's pages, JSON API and
 * {@code /jmx} through the ResourceManager's proxy. He is refused each time; alice reads them.
 * Her job's second plan then runs on executors launched after the AM re-obtained its tokens
 * (the client's are past their maximum date by then), fetches through the same service again,
 * and both plans' output is exact.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SecureSecondPrincipalTest {
  private static final String EVENTS = "/tmp/tide-events-secure-second-principal";
  private static SecureCluster secure;
  private static UserGroupInformation alice;
  private static UserGroupInformation bob;

  @BeforeAll
  static void start() throws Exception {
    secure = SecureCluster.shared(TokenLifetimes.SHORT);
    alice = secure.login(SecureCluster.ALICE);
    bob = secure.login(SecureCluster.BOB);
  }

  @Test
  void anotherPrincipalGetsNeitherTheShuffleBlocksNorTheUiOfAnEncryptedJob() throws Exception {
    String out = "/user/alice/gated";
    org.apache.hadoop.fs.Path gate = new org.apache.hadoop.fs.Path("/user/alice/gated-gate");
    Configuration conf = secure.clientConf();
    conf.set("tide.network.crypto.enabled", "true");
    conf.set("tide.eventLog.dir", EVENTS);
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    conf.set("tide.task.maxAttempts", "1");
    conf.set("tide.dynamicAllocation.executorIdleTimeout", "1s");
    // With her keytab the job outlives the NameNode's short token lifetime while it waits.
    CompletableFuture<JobRun> job = CompletableFuture.supplyAsync(() -> {
      try {
        return SecureCluster.as(alice, () -> Submitter.run(conf, System.out, "--principal",
            secure.principal(SecureCluster.ALICE), "--keytab",
            secure.keytab(SecureCluster.ALICE).toString(), GatedJob.class.getName(), out,
            gate.toString()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FileSystem fs = secure.cluster().fileSystem();
    String appId = Await.value(Duration.ofSeconds(120), "the job's first plan to end", () -> {
      if (job.isDone()) {
        throw new AssertionError("the job ended before its gate: " + job.get().output());
      }
      for (List<EventLine> events : JobRun.runningEventLogs(fs, EVENTS)) {
        if (!JobRun.named(events, EventName.PLAN_END).isEmpty()) {
          return JobRun.appId(events);
        }
      }
      return null;
    });

    MapOutput held = mapOutputOf(appId);
    byte[] bobsSecret = AppSecret.generate(); // all bob holds: secrets of his own applications
    for (boolean encrypt : List.of(true, false)) {
      ShuffleFetchException refused = assertThrows(ShuffleFetchException.class,
          () -> SecureCluster.as(bob, () -> {
            try (ShuffleClient client = new ShuffleClient(appId, bobsSecret,
                ShuffleClientConfig.DEFAULTS.withEncryption(encrypt))) {
              return client.fetch("localhost", held.port(), List.of(held.block()));
            }
          }));
      assertEquals(ShuffleFetchException.Reason.AUTH, refused.reason(), refused.getMessage());
      assertTrue(refused.getMessage().contains(encrypt ? "authentication failed for application "
          + appId : "this server requires encrypted connections"), refused.getMessage());
    }

    String proxy = "http://" + conf.get("yarn.resourcemanager.webapp.address") + "/proxy/"
        + appId + "/";
    String jmx = "jmx?qry=Hadoop:service=TideAM,name=TideApplicationMaster";
    HttpReply overview = get(alice, proxy);
    assertEquals(200, overview.code(), overview.body());
    assertTrue(overview.body().contains(appId), overview.body());
    HttpReply api = get(alice, proxy + "api/v1/app");
    assertEquals(200, api.code(), api.body());
    assertTrue(api.body().contains(GatedJob.class.getName()), api.body());
    HttpReply metrics = get(alice, proxy + jmx);
    assertEquals(200, metrics.code(), metrics.body());
    assertTrue(metrics.body().contains("TargetExecutors"), metrics.body());
    for (String path : List.of("", "api/v1/app", jmx)) {
      HttpReply refused = get(bob, proxy + path);
      assertEquals(403, refused.code(), "/" + path + ": " + refused.body());
      assertTrue(refused.body().contains("User bob may not view " + appId + " of alice"),
          refused.body());
      assertFalse(refused.body().contains("TargetExecutors")
          || refused.body().contains(GatedJob.class.getName()), refused.body());
    }

    // Executors launched after the AM re-obtained its tokens must get the fresh ones: the gate
    // opens once the client's tokens are past their maximum date and the first plan's executors
    // are gone, so the second plan's tasks (which write HDFS) run on executors launched since.
    Await.until(Duration.ofSeconds(90), () -> "fresh tokens, the client's tokens past their"
        + " maximum date and no executor left: " + tokenAndExecutorEvents(fs, appId), () -> {
          List<EventLine> events = eventsOf(fs, appId);
          long clientTokensEnd = JobRun.named(events, EventName.TOKENS_OBTAINED).get(0)
              .getLong("maxDate");
          return !JobRun.named(events, EventName.TOKENS_REOBTAINED).isEmpty()
              && System.currentTimeMillis() > clientTokensEnd
              && JobRun.named(events, EventName.EXECUTOR_ADDED).size()
                  == JobRun.named(events, EventName.EXECUTOR_REMOVED).size();
        });
    SecureCluster.as(alice, () -> {
      FileSystem.get(secure.clientConf()).create(gate).close();
      return null;
    });
    JobRun run = job.get(180, TimeUnit.SECONDS);
    assertEquals(0, run.exitCode(), run.output());
    assertEquals(GatedJob.expected(), WordCountOutput.read(fs, out + "/before"));
    assertEquals(GatedJob.expected(), WordCountOutput.read(fs, out + "/after"),
        "the second plan fetched through tide_shuffle after bob's refusals, on executors"
        + " launched with the re-obtained tokens");
  }

  private static List<EventLine> eventsOf(FileSystem fs, String appId) throws IOException {
    try (InputStream in = fs.open(EventLog.pathFor(EVENTS, appId))) {
      return EventLine.readAll(in);
    }
  }

  private static String tokenAndExecutorEvents(FileSystem fs, String appId) {
    try {
      return eventsOf(fs, appId).stream().filter(e -> e.event().startsWith("tokens")
          || e.event().startsWith("executor")).map(e -> e.event() + "@" + e.timeMillis())
          .toList().toString();
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** One map output file of the application and the port of the service that holds it. */
  private record MapOutput(int port, BlockId block) {}

  private static MapOutput mapOutputOf(String appId) throws IOException {
    for (int i = 0; i < SecureCluster.NODE_MANAGERS; i++) {
      NodeManager nm = secure.cluster().yarn().getNodeManager(i);
      int port = ShuffleServiceMetadata.decodePort(nm.getNMContext().getAuxServices()
          .getMetaData().get(ShuffleServiceMetadata.SERVICE_NAME));
      for (String dir : nm.getConfig().getTrimmedStrings("yarn.nodemanager.local-dirs")) {
        java.nio.file.Path shuffles = ShuffleLayout.appLocalDir(java.nio.file.Path.of(dir),
            SecureCluster.ALICE, appId).resolve(ShuffleLayout.SHUFFLE_DIR);
        if (!Files.isDirectory(shuffles)) {
          continue;
        }
        try (Stream<java.nio.file.Path> files = Files.walk(shuffles)) {
          Optional<java.nio.file.Path> data = files
              .filter(f -> f.getFileName().toString().endsWith(".data")).findFirst();
          if (data.isPresent()) {
            String name = data.get().getFileName().toString();
            int shuffleId = Integer.parseInt(data.get().getParent().getFileName().toString());
            int mapId = Integer.parseInt(name.substring(0, name.length() - ".data".length()));
            return new MapOutput(port, BlockId.of(shuffleId, mapId, 0));
          }
        }
      }
    }
    throw new AssertionError("no map output of " + appId + " on any NodeManager");
  }

  /** GET {@code url} as {@code user}, authenticated by SPNEGO with the user's ticket. */
  private static HttpReply get(UserGroupInformation user, String url) throws Exception {
    return user.doAs((PrivilegedExceptionAction<HttpReply>) () -> HttpReply.of(
        new AuthenticatedURL().openConnection(new URL(url), new AuthenticatedURL.Token())));
  }
}
