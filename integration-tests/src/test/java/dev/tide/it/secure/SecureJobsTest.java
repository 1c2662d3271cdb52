package dev.tide.it.secure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.it.JobRun;
import dev.tide.it.Submitter;
import dev.tide.it.TextGenerator;
import dev.tide.it.WordCountOutput;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jobs on a Kerberized cluster ({@link SecureCluster}), submitted by {@code alice} logged in
 * from her keytab: the built-in wordcount and a user job whose tasks make their own FileSystem
 * calls read and write HDFS with the delegation tokens the client obtained, and their output is
 * exact. Without a Kerberos ticket the client stops before YARN is asked for anything. On the
 * JVM's shared Kerberized cluster, with Hadoop's default token lifetimes: a job without a keytab
 * ends when its tokens reach their maximum lifetime (wordcount took 30 s at a load of 15, past
 * the 30 s of {@link SecureCluster.TokenLifetimes#SHORT}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SecureJobsTest {
  private static SecureCluster secure;
  private static UserGroupInformation alice;

  @BeforeAll
  static void start() throws Exception {
    secure = SecureCluster.shared();
    alice = secure.login(SecureCluster.ALICE);
  }

  @Test
  void wordcountReadsAndWritesKerberizedHdfs() throws Exception {
    Map<String, Long> expected = SecureCluster.as(alice, () -> TextGenerator.write(
        FileSystem.get(secure.clientConf()), new org.apache.hadoop.fs.Path("/user/alice/wc/in"),
        3, 20_000, 34));
    Configuration conf = conf();

    JobRun run = SecureCluster.as(alice, () -> Submitter.run(conf, System.out, "wordcount",
        "/user/alice/wc/in", "/user/alice/wc/out"));

    assertEquals(0, run.exitCode(), run.output());
    assertEquals(expected, SecureCluster.as(alice, () -> WordCountOutput.read(
        FileSystem.get(secure.clientConf()), "/user/alice/wc/out")));
  }

  @Test
  void userJobsOwnFileSystemCallsWork() throws Exception {
    List<String> words = List.of("kerberos", "token", "keytab", "ticket");
    SecureCluster.as(alice, () -> {
      try (OutputStream out = FileSystem.get(secure.clientConf())
          .create(new org.apache.hadoop.fs.Path("/user/alice/lookup/words.txt"))) {
        out.write(String.join("\n", words).getBytes(StandardCharsets.UTF_8));
      }
      return null;
    });

    JobRun run = SecureCluster.as(alice, () -> Submitter.run(conf(), System.out,
        LookupJob.class.getName(), "/user/alice/lookup/words.txt", "/user/alice/lookup/out",
        "/user/alice/lookup/markers"));

    assertEquals(0, run.exitCode(), run.output());
    Map<String, Long> expected = new TreeMap<>();
    words.forEach(w -> expected.put(w, (long) LookupJob.SPLITS));
    FileSystem fs = secure.cluster().fileSystem();
    assertEquals(expected, WordCountOutput.read(fs, "/user/alice/lookup/out"));
    for (int partition = 0; partition < 2; partition++) {
      org.apache.hadoop.fs.Path marker =
          new org.apache.hadoop.fs.Path("/user/alice/lookup/markers/reduce-" + partition);
      assertEquals(SecureCluster.ALICE, fs.getFileStatus(marker).getOwner(),
          "written by the reducer as alice");
    }
  }

  @Test
  void withoutATicketTheClientStopsBeforeSubmitting() throws Exception {
    int applicationsBefore = secure.cluster().yarnClient().getApplications().size();
    UserGroupInformation noTicket = UserGroupInformation.createRemoteUser("carol");

    JobRun run = SecureCluster.as(noTicket, () -> Submitter.run(conf(), System.out,
        "wordcount", "/user/alice/wc/in", "/user/carol/out"));

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.output().contains("kinit") && run.output().contains("--keytab"),
        run.output());
    assertTrue(run.output().lines().noneMatch(l -> l.startsWith("\tat ")), run.output());
    assertEquals(applicationsBefore, secure.cluster().yarnClient().getApplications().size());
  }

  @Test
  void aKeytabWithoutThePrincipalsKeyOrNoRmPrincipalIsOneLine() throws Exception {
    int applicationsBefore = secure.cluster().yarnClient().getApplications().size();
    UserGroupInformation noTicket = UserGroupInformation.createRemoteUser("carol");

    JobRun wrongKeytab = SecureCluster.as(noTicket, () -> Submitter.run(conf(), System.out,
        "--principal", secure.principal(SecureCluster.BOB), "--keytab",
        secure.keytab(SecureCluster.ALICE).toString(), "wordcount", "/in", "/out"));
    Configuration noRmPrincipal = conf();
    noRmPrincipal.unset("yarn.resourcemanager.principal");
    JobRun noRenewer = SecureCluster.as(alice, () -> Submitter.run(noRmPrincipal, System.out,
        LookupJob.class.getName(), "/user/alice/words", "/user/alice/out-no-renewer", "/m"));

    assertEquals(2, wrongKeytab.exitCode(), wrongKeytab.output());
    assertEquals(List.of("tide: keytab " + secure.keytab(SecureCluster.ALICE) + " holds no key"
        + " of " + secure.principal(SecureCluster.BOB) + " (it holds "
        + secure.principal(SecureCluster.ALICE) + "): check --principal, or use that"
        + " principal's keytab"), wrongKeytab.output().lines().toList());
    assertEquals(2, noRenewer.exitCode(), noRenewer.output());
    assertTrue(noRenewer.output().lines().anyMatch(l -> l.startsWith("tide: security is on but"
        + " yarn.resourcemanager.principal is not set")), noRenewer.output());
    assertTrue(noRenewer.output().lines().noneMatch(l -> l.startsWith("\tat ")));
    assertEquals(applicationsBefore, secure.cluster().yarnClient().getApplications().size());
  }

  private static Configuration conf() {
    Configuration conf = secure.clientConf();
    conf.set("tide.dynamicAllocation.maxExecutors", "2");
    conf.set("tide.task.maxAttempts", "1");
    conf.set("tide.eventLog.dir", "/tmp/tide-events");
    return conf;
  }
}
