package dev.tide.it.secure;

import dev.tide.it.EmbeddedCluster;
import dev.tide.it.SharedCluster;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A Kerberized Hadoop in this JVM: a {@link MiniKdc}, then an {@link EmbeddedCluster} (HDFS and
 * YARN with the {@code tide_shuffle} aux service) whose daemons log in from the KDC's keytab, and
 * two users with keytabs of their own ({@link #ALICE}, {@link #BOB}). One per test class
 * ({@code @BeforeAll} / {@code @AfterAll}); see {@code integration-tests/SECURE-TESTING.md} for
 * why each setting is there. Starting it stops the JVM's {@link SharedCluster} (security is a
 * JVM-wide setting of Hadoop's UserGroupInformation); {@link #close()} turns security off again
 * so that the next class's cluster starts without it.
 */
public final class SecureCluster implements AutoCloseable {
  public static final String ALICE = "alice";
  public static final String BOB = "bob";
  /**
   * The one principal of every daemon (NameNode, DataNode, ResourceManager, NodeManagers): they
   * share the JVM, and Hadoop's login user is one per JVM (the last daemon's login wins), so
   * distinct principals would make a daemon answer with another's key.
   */
  static final String SERVICE = "hadoop/localhost";
  static final String HTTP = "HTTP/localhost";

  private final MiniKdc kdc;
  private final EmbeddedCluster cluster;
  private final Path keytabs;

  private SecureCluster(MiniKdc kdc, EmbeddedCluster cluster, Path keytabs) {
    this.kdc = kdc;
    this.cluster = cluster;
    this.keytabs = keytabs;
  }

  /** Starts the KDC and the cluster; {@code settings} are applied to HDFS's and YARN's conf. */
  public static SecureCluster start(String name, int nodeManagers, Path workDir,
      Consumer<Configuration> settings) throws Exception {
    SharedCluster.stop();
    Path kdcDir = Files.createDirectories(workDir.toAbsolutePath().resolve("kdc"));
    Properties kdcConf = MiniKdc.createConf();
    MiniKdc kdc = new MiniKdc(kdcConf, kdcDir.toFile());
    kdc.start();
    try {
      Path keytabs = Files.createDirectories(workDir.toAbsolutePath().resolve("keytabs"));
      File service = keytabs.resolve("service.keytab").toFile();
      kdc.createPrincipal(service, SERVICE, HTTP);
      kdc.createPrincipal(keytabs.resolve(ALICE + ".keytab").toFile(), ALICE);
      kdc.createPrincipal(keytabs.resolve(BOB + ".keytab").toFile(), BOB);

      Configuration base = new YarnConfiguration();
      secure(base, kdc.getRealm(), service.getAbsolutePath());
      settings.accept(base);
      // Before any daemon logs in: UserGroupInformation reads "security on" once, JVM-wide.
      UserGroupInformation.setConfiguration(base);
      // Absolute: the containers' CLASSPATH names the conf dir, from their own working dirs
      // (with a relative one they miss core-site.xml and run with security off).
      EmbeddedCluster cluster = EmbeddedCluster.start(name, nodeManagers,
          workDir.toAbsolutePath(), base, settings);
      SecureCluster secure = new SecureCluster(kdc, cluster, keytabs);
      secure.makeHome(ALICE);
      secure.makeHome(BOB);
      FileSystem fs = cluster.fileSystem();
      fs.mkdirs(new org.apache.hadoop.fs.Path("/tmp"));
      fs.setPermission(new org.apache.hadoop.fs.Path("/tmp"), new FsPermission((short) 01777));
      return secure;
    } catch (Exception | Error e) {
      kdc.stop();
      resetSecurity();
      throw e;
    }
  }

  /** The settings of a Kerberized HDFS and YARN whose daemons all use {@link #SERVICE}. */
  static void secure(Configuration conf, String realm, String keytab) {
    String service = SERVICE + "@" + realm;
    String http = HTTP + "@" + realm;
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set("dfs.namenode.kerberos.principal", service);
    conf.set("dfs.namenode.keytab.file", keytab);
    conf.set("dfs.datanode.kerberos.principal", service);
    conf.set("dfs.datanode.keytab.file", keytab);
    conf.set("dfs.web.authentication.kerberos.principal", http);
    conf.set("dfs.web.authentication.kerberos.keytab", keytab);
    conf.setBoolean("dfs.block.access.token.enable", true);
    // A secure DataNode needs privileged ports (jsvc) or SASL on its data transfer
    // (dfs.data.transfer.protection, which every client must know too, the NodeManager's
    // localizer included, from an hdfs-site.xml on its classpath): neither, test only.
    conf.setBoolean("ignore.secure.ports.for.testing", true);
    conf.set("yarn.resourcemanager.principal", service);
    conf.set("yarn.resourcemanager.keytab", keytab);
    conf.set("yarn.nodemanager.principal", service);
    conf.set("yarn.nodemanager.keytab", keytab);
  }

  /** {@code /user/<user>} owned by the user (the staging directory is under it). */
  private void makeHome(String user) throws IOException {
    FileSystem fs = cluster.fileSystem();
    org.apache.hadoop.fs.Path home = new org.apache.hadoop.fs.Path("/user/" + user);
    fs.mkdirs(home);
    fs.setOwner(home, user, user);
  }

  public EmbeddedCluster cluster() {
    return cluster;
  }

  public String realm() {
    return kdc.getRealm();
  }

  /** {@code user@REALM}. */
  public String principal(String user) {
    return user + "@" + kdc.getRealm();
  }

  /** The keytab of {@link #ALICE} or {@link #BOB}. */
  public Path keytab(String user) {
    return keytabs.resolve(user + ".keytab");
  }

  /**
   * A client's settings: the cluster's, and the Kerberos configuration (the KDC's
   * {@code krb5.conf}) for the AM's and executors' JVMs, which a real node has in
   * {@code /etc/krb5.conf}.
   */
  public Configuration clientConf() {
    Configuration conf = cluster.clientConf();
    String krb5 = " -D" + MiniKdc.JAVA_SECURITY_KRB5_CONF + "="
        + kdc.getKrb5conf().getAbsolutePath();
    conf.set("tide.am.javaOpts", conf.get("tide.am.javaOpts", "") + krb5);
    conf.set("tide.executor.javaOpts", conf.get("tide.executor.javaOpts", "") + krb5);
    return conf;
  }

  /** {@code user} logged in from its keytab, as after {@code kinit -kt}. */
  public UserGroupInformation login(String user) throws IOException {
    return UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal(user),
        keytab(user).toString());
  }

  /** Runs {@code action} as {@code ugi} (a test's client code). */
  public static <T> T as(UserGroupInformation ugi, PrivilegedExceptionAction<T> action)
      throws Exception {
    return ugi.doAs(action);
  }

  @Override
  public void close() {
    try {
      cluster.close();
    } finally {
      kdc.stop();
      resetSecurity();
    }
  }

  /** Security off again for whatever this JVM runs next. */
  private static void resetSecurity() {
    UserGroupInformation.reset();
    UserGroupInformation.setConfiguration(new Configuration());
  }
}
