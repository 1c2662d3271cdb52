package dev.tide.am.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppSecret;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.junit.jupiter.api.Test;

class DelegationTokensTest {
  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "hdfs://nn:8020");
    return conf;
  }

  @Test
  void theDefaultFileSystemThoseJobArgumentsNameAndTheSettings() {
    Configuration conf = conf();
    conf.set("tide.kerberos.access.hadoopFileSystems", "hdfs://nn3:8020, webhdfs://w:9870/x");
    conf.set("tide.eventLog.dir", "hdfs://logs:8020/events");

    Set<URI> filesystems = DelegationTokens.fileSystems(conf,
        List.of("hdfs://nn2:9000/in", "/out", "-m", "file:///tmp/local", "a://b"));

    assertEquals(List.of(URI.create("hdfs://nn:8020"), URI.create("hdfs://logs:8020/"),
        URI.create("hdfs://nn2:9000/"), URI.create("hdfs://nn3:8020/"),
        URI.create("webhdfs://w:9870/")), List.copyOf(filesystems));
  }

  @Test
  void aMalformedEntryOfTheSettingIsNamed() {
    Configuration conf = conf();
    conf.set("tide.kerberos.access.hadoopFileSystems", "/data");

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DelegationTokens.fileSystems(conf, List.of()));
    assertTrue(e.getMessage().startsWith("tide.kerberos.access.hadoopFileSystems: '/data'"),
        e.getMessage());
  }

  @Test
  void executorsGetEveryTokenButTheAmrmTokenAndTheSecret() {
    byte[] secret = AppSecret.generate();
    Credentials am = AppSecret.asCredentials(secret);
    DelegationTokenIdentifier id = new DelegationTokenIdentifier(new Text("alice"),
        new Text("rm"), new Text(""));
    id.setMaxDate(5_000);
    Token<DelegationTokenIdentifier> hdfs = new Token<>(id.getBytes(), new byte[] {1},
        DelegationTokenIdentifier.HDFS_DELEGATION_KIND, new Text("nn:8020"));
    am.addToken(hdfs.getService(), hdfs);
    am.addToken(new Text("amrm"), new Token<>(new byte[] {2}, new byte[] {3},
        AMRMTokenIdentifier.KIND_NAME, new Text("rm:8030")));

    Credentials executor = DelegationTokens.forExecutors(am);

    assertEquals(List.of(hdfs), List.copyOf(executor.getAllTokens()));
    assertArrayEquals(secret, executor.getSecretKey(AppSecret.CREDENTIALS_ALIAS));
    assertEquals(Optional.of(5_000L), DelegationTokens.earliestMaxDate(am));
  }
}
